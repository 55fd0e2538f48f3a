// Bad input the probe of issue 12 turned into 500s: each case answers a 4xx in the error body, and text the
// XML cannot carry is cleaned before signing instead of failing the signature.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../src-shared/contracts/errors.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Sends raw bytes and returns the whole answer: fetch cannot send a truncated body. */
function rawRequest(text: string): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(h.service.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(out.slice(9, 12));
      resolve({ status, body: JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) });
    });
  });
}

const item = { codigo: '1', descricao: 'Cafe', ncm: '09012100', quantidade: 1, valorUnitario: 10 };

async function settled(id: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const status = ((await h.request('GET', `/v1/nfe/${id}`)).body as { status: string }).status;
    if (status !== 'processando') return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${id} still processando`);
}

describe('no 500 from input', () => {
  it('a body nested 10 000 levels deep is a 400 naming body, on every route that parses JSON', async () => {
    for (const path of ['/v1/nfe', '/v1/nfce', '/v1/customers', '/v1/products', '/v1/webhooks']) {
      const res = await h.request('POST', path, {
        body: `{"itens":${nested(10_000)}}`,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_json',
        message: 'The request body is nested too deeply.',
        details: [{ field: 'body', error: 'arrays and objects may be nested at most 32 levels deep' }],
      });
    }
    // Brackets inside strings are text, not nesting.
    const inText = await h.request('POST', '/v1/customers', {
      json: { xNome: '['.repeat(50), cpf: 'x' },
    });
    expect(inText.status).toBe(400);
    expect((inText.body as { error: string }).error).toBe('validation_error');
  });

  it('a compressed body that does not decompress is a 400 naming body (found by probing headers)', async () => {
    for (const [encoding, error] of [
      ['gzip', 'incorrect header check'],
      ['deflate', 'incorrect header check'],
      ['br', 'Decompression failed'],
    ] as const) {
      const res = await h.request('POST', '/v1/customers', {
        body: '{"xNome":"Ana"}',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      });
      expect(res.status, encoding).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_json',
        message: 'The request body could not be read.',
        details: [{ field: 'body', error }],
      });
    }
  });

  it('a path with broken percent-encoding is a 400 naming path', async () => {
    for (const path of ['/v1/nfe/%E0%A4%A', '/v1/nfe/%', '/v1/customers/%C0%AF']) {
      const res = await h.request('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_error',
        message: 'The request path is not valid percent-encoded UTF-8.',
        details: [{ field: 'path', error: 'malformed percent-encoding' }],
      });
    }
  });

  it('a 100 KB URL is a 431 with the error body', async () => {
    const res = await h.request('GET', `/v1/nfe/${'a'.repeat(100_000)}`);
    expect(res.status).toBe(431);
    expect(errorBodySchema.parse(res.body)).toMatchObject({ error: 'headers_too_large' });
  });

  it('an error of a route that answers XML still comes as JSON (found by the fuzz test)', async () => {
    const res = await h.request('GET', '/v1/nfe/received/00000000-0000-4000-8000-000000000000/xml');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ error: 'not_found', message: 'Received note not found.', details: [] });
  });

  it('a truncated multipart certificate upload is a 400', async () => {
    const boundary = 'b0undary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\nsecret\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="certificate"; filename="a.pfx"\r\n` +
      `Content-Type: application/x-pkcs12\r\n\r\nABCDEF`;
    const res = await rawRequest(
      `POST /v1/companies/${h.companyId}/certificate HTTP/1.1\r\nHost: localhost\r\n` +
        `X-API-Key: ${h.apiKey}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_error',
      message: 'The multipart upload is malformed or incomplete.',
      details: [{ field: 'body', error: 'Unexpected end of form' }],
    });
  });

  it('control characters and lone surrogates in a saved customer are cleaned before signing', async () => {
    const customer = await h.request('POST', '/v1/customers', {
      json: {
        cpfCnpj: '529.982.247-25',
        nome: 'Ana\u0001\uD800 Souza',
        endereco: {
          logradouro: 'Rua\u0007 \uDC00Augusta',
          numero: '1\u0000',
          bairro: 'Sé\u001F',
          xMun: 'SAO PAULO',
          UF: 'SP',
          CEP: '01002-000',
        },
      },
    });
    expect(customer.status, customer.text).toBe(201);
    const customerId = (customer.body as { id: string }).id;
    const res = await h.request('POST', '/v1/nfe', {
      json: {
        naturezaOperacao: 'VENDA',
        customerId,
        itens: [item],
        pagamentos: [{ forma: '01', valor: 10 }],
      },
    });
    expect(res.status, res.text).toBe(201);
    const xml = (await h.request('GET', `/v1/nfe/${(res.body as { id: string }).id}/xml`)).text;
    expect(xml).toContain('<xLgr>Rua Augusta</xLgr><nro>1</nro><xBairro>Sé</xBairro>');
    // eslint-disable-next-line no-control-regex -- the point is that none is left
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF]/);
  });

  it('the same characters in a recipient written in the note are cleaned too', async () => {
    const res = await h.request('POST', '/v1/nfe', {
      json: {
        naturezaOperacao: 'VENDA',
        customer: {
          cpfCnpj: '529.982.247-25',
          nome: 'Ana Souza',
          endereco: {
            logradouro: 'Rua\u0007 \uDC00Direita',
            numero: '100\u0000',
            bairro: 'Centro\u001F',
            xMun: 'SAO PAULO',
            UF: 'SP',
            CEP: '01002-000',
          },
        },
        itens: [item],
        pagamentos: [{ forma: '01', valor: 10 }],
      },
    });
    expect(res.status, res.text).toBe(201);
    const xml = (await h.request('GET', `/v1/nfe/${(res.body as { id: string }).id}/xml`)).text;
    expect(xml).toContain('<xLgr>Rua Direita</xLgr><nro>100</nro><xBairro>Centro</xBairro>');
  });

  it('an emoji-only cancel justification is a 400 on justificativa, and the note stays authorized', async () => {
    const created = await h.request('POST', '/v1/nfe', {
      json: {
        naturezaOperacao: 'VENDA',
        customer: {
          cpfCnpj: '529.982.247-25',
          nome: 'Ana Souza',
          endereco: { logradouro: 'Rua A', numero: '1', bairro: 'Centro', xMun: 'SAO PAULO', UF: 'SP' },
        },
        itens: [item],
        pagamentos: [{ forma: '01', valor: 10 }],
      },
    });
    const id = (created.body as { id: string }).id;
    expect((await h.request('POST', `/v1/nfe/${id}/send`)).status).toBe(202);
    expect(await settled(id)).toBe('autorizada');
    const res = await h.request('POST', `/v1/nfe/${id}/cancel`, {
      json: { justificativa: '\u{1F600}'.repeat(20) },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_error',
      message: 'The request has invalid fields.',
      details: [
        { field: 'justificativa', error: 'must have 15 to 255 characters after normalization, has 0' },
      ],
    });
    expect(await settled(id)).toBe('autorizada');
  });
});
