// The NFS-e authority port over real HTTPS with mutual TLS against a small national environment started here:
// what the queue gets for a note (201), a refusal (E004/E012), a duplicate DPS (E106), a lookup by DPS Id
// (404 = never became a note), events, server trouble and unreadable answers (may have been received), a closed
// port (not received), the municipal parameters and their cache, and that every request carries the A1.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../../src-shared/tables/nfse-codes.ts';
import { generateTestA1, readPkcs12, type A1Certificate } from '../../fiscal/certificate.ts';
import { AuthorityUnavailable } from '../../outbox/ports.ts';
import { generateServerIdentity } from '../../sandbox/certificates.ts';
import { httpsTransport, type HttpsTransport } from '../transport.ts';
import { gunzipBase64, gzipBase64 } from './codec.ts';
import { createNfseAuthorityPort, MUNICIPAL_CACHE_MS, type NfseAuthorityPort } from './port.ts';
import { rejectionOf } from '../../../test/fixtures/rejection.ts';

const reference = new URL('../../../../shared/reference/', import.meta.url);
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, reference)), 'utf8');

// The real note of the reference samples: key, DPS Id, infNFSe cStat 100, nDFSe 9, dhProc.
const NFSE_XML = read('samples/nfse/nfse.xml');
const CHAVE = '15054862231305199000190000000000000225121645026250';
const ID_DPS = 'DPS150548623130519900019000900000000000000003';
// The port and codec only check that a signature is there (the signer and the sandbox check it elsewhere).
const SIGNATURE = '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature>';
const DPS_XML = read('samples/nfse/dps_example.xml').replace('</DPS>', `${SIGNATURE}</DPS>`);
/** The Id of the DPS sample sent in these tests. */
const SENT_ID_DPS = 'DPS150548624482769200011100900000000000000031';
const NS = 'http://www.sped.fazenda.gov.br/nfse';
const PED_REG_EVENTO =
  `<pedRegEvento xmlns="${NS}" versao="1.01"><infPedReg Id="PRE${CHAVE}101101">` +
  `<tpAmb>2</tpAmb><verAplic>balcao</verAplic><dhEvento>2026-11-24T10:00:00-03:00</dhEvento>` +
  `<CNPJAutor>31305199000190</CNPJAutor><chNFSe>${CHAVE}</chNFSe><nPedRegEvento>1</nPedRegEvento>` +
  `<e101101><xDesc>Cancelamento de NFS-e</xDesc><cMotivo>1</cMotivo><xMotivo>Erro na emissão da nota</xMotivo></e101101>` +
  `</infPedReg>${SIGNATURE}</pedRegEvento>`;
const EVENTO_XML =
  `<?xml version="1.0" encoding="UTF-8"?><evento xmlns="${NS}" versao="1.01"><infEvento Id="EVT${CHAVE}101101001">` +
  `<verAplic>sefin</verAplic><ambGer>2</ambGer><nSeqEvento>1</nSeqEvento><dhProc>2026-11-24T10:00:01-03:00</dhProc>` +
  `<nDFSe>77</nDFSe>${PED_REG_EVENTO}</infEvento>${SIGNATURE}</evento>`;

const header = {
  tipoAmbiente: 2,
  versaoAplicativo: 'SefinNacional_1.0',
  dataHoraProcessamento: '2026-11-24T10:00:00-03:00',
};
const nfseAnswer = { ...header, idDps: ID_DPS, chaveAcesso: CHAVE, nfseXmlGZipB64: gzipBase64(NFSE_XML) };
const erro = (codigo: string, descricao: string) => ({ codigo, descricao });

function a1(cnpj: string, legalName: string): A1Certificate {
  return readPkcs12(generateTestA1({ cnpj, legalName, password: 'x' }), 'x');
}

interface Seen {
  method: string;
  path: string;
  body: string;
  contentType: string | undefined;
  accept: string | undefined;
  /** The CN of the client certificate the TLS session presented ('' when none). */
  peerCn: string;
}
type Reply = { status: number; body?: unknown; raw?: string };
type Route = (req: Seen) => Reply | undefined;

const client = a1('31305199000190', 'PRESTADOR TESTE LTDA');
const stranger = a1('11222333000181', 'EMPRESA ESTRANHA LTDA');
const serverId = generateServerIdentity();
let route: Route = () => undefined;
let seen: Seen[] = [];
let server: https.Server;
let base: string;
let nowMs = Date.parse('2026-11-24T13:00:00Z');
const transports: HttpsTransport[] = [];

function port(
  options: { certificate?: A1Certificate; url?: string; cacheMs?: number } = {},
): NfseAuthorityPort {
  const transport = httpsTransport({
    certificate: options.certificate ?? client,
    ca: serverId.certPem,
    connectTimeoutMs: 2000,
  });
  transports.push(transport);
  return createNfseAuthorityPort({
    transport,
    tpAmb: 2,
    timeoutMs: 2000,
    cMun: '1505486',
    sandboxUrl: options.url ?? base,
    ...(options.cacheMs === undefined ? {} : { municipalCacheMs: options.cacheMs }),
    now: () => nowMs,
  });
}

function answer(res: ServerResponse, reply: Reply): void {
  const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status, { 'Content-Type': 'application/json' });
  res.end(text);
}

beforeAll(async () => {
  server = https.createServer(
    {
      key: serverId.keyPem,
      cert: serverId.certPem,
      // The national environment's rule: only a client certificate it trusts gets in (mutual TLS).
      ca: client.certificatePem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        const s: Seen = {
          method: req.method ?? '',
          path: req.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: req.headers['content-type'],
          accept: req.headers.accept,
          peerCn: typeof peer.subject?.CN === 'string' ? peer.subject.CN : '',
        };
        seen.push(s);
        answer(
          res,
          route(s) ?? { status: 404, body: { ...header, erro: erro('X404', 'rota desconhecida') } },
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of transports) t.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  route = () => undefined;
});

const unavailable = (promise: Promise<unknown>) => rejectionOf(promise, AuthorityUnavailable);

describe('NFS-e port: authorize (POST /nfse)', () => {
  it('201: the note as the protocol, with its 50-digit key, cStat, nDFSe, dhProc and the XML as received', async () => {
    route = (r) =>
      r.method === 'POST' && r.path === '/nfse/SefinNacional/nfse'
        ? { status: 201, body: nfseAnswer }
        : undefined;
    const result = await port().authorize(DPS_XML);
    expect(result).toEqual({
      cStat: '100',
      xMotivo: NFSE_CODES.gerada.text,
      protocol: {
        chave: CHAVE,
        cStat: '100',
        xMotivo: NFSE_CODES.gerada.text,
        nProt: '9',
        dhRecbto: '2025-12-03T09:51:59-03:00',
        xml: NFSE_XML,
      },
    });
    expect(seen).toHaveLength(1);
    const sent = seen[0];
    expect(sent?.contentType).toMatch(/^application\/json/);
    expect(sent?.accept).toBe('application/json');
    const body = JSON.parse(sent?.body ?? '{}') as { dpsXmlGZipB64: string };
    expect(Object.keys(body)).toEqual(['dpsXmlGZipB64']);
    expect(gunzipBase64(body.dpsXmlGZipB64)).toBe(DPS_XML);
  });

  it('400 with erros: the first code as cStat, every error in xMotivo, no protocol', async () => {
    route = () => ({
      status: 400,
      body: {
        ...header,
        idDPS: ID_DPS,
        erros: [
          erro('E004', 'Município não aderente'),
          { codigo: 'E012', complemento: 'pAliq 6.00, alíquota cadastrada 5.00' },
        ],
      },
    });
    expect(await port().authorize(DPS_XML)).toEqual({
      cStat: 'E004',
      xMotivo: `E004 Município não aderente; E012 ${NFSE_CODES.aliquotaIss.text} (pAliq 6.00, alíquota cadastrada 5.00)`,
      protocol: null,
    });
  });

  it('E106 duplicate: a protocol naming the DPS Id, for the queue to consult', async () => {
    route = () => ({
      status: 400,
      body: { ...header, idDPS: SENT_ID_DPS, erros: [erro('E106', NFSE_CODES.dpsDuplicada.text)] },
    });
    const text = `E106 ${NFSE_CODES.dpsDuplicada.text}`;
    expect(await port().authorize(DPS_XML)).toEqual({
      cStat: 'E106',
      xMotivo: text,
      protocol: { chave: SENT_ID_DPS, cStat: 'E106', xMotivo: text, nProt: null, dhRecbto: null, xml: '' },
    });
  });

  it('5xx (even with erros) and 429 decide nothing: unavailable, may have been received', async () => {
    route = () => ({ status: 500, body: { ...header, erros: [erro('E999', 'falha interna')] } });
    expect(await unavailable(port().authorize(DPS_XML))).toMatchObject({ mayHaveBeenReceived: true });
    route = () => ({ status: 503, raw: '<html>Service Unavailable</html>' });
    expect(await unavailable(port().authorize(DPS_XML))).toMatchObject({ mayHaveBeenReceived: true });
    route = () => ({ status: 429, body: { ...header, erro: erro('429', 'muitas requisições') } });
    expect(await unavailable(port().authorize(DPS_XML))).toMatchObject({ mayHaveBeenReceived: true });
  });

  it('an unreadable 201 (the note not gzip, or not JSON at all) is unavailable, may have been received', async () => {
    route = () => ({
      status: 201,
      body: { ...nfseAnswer, nfseXmlGZipB64: Buffer.from(NFSE_XML).toString('base64') },
    });
    const notGzip = await unavailable(port().authorize(DPS_XML));
    expect(notGzip.mayHaveBeenReceived).toBe(true);
    expect(notGzip.message).toMatch(/nfseXmlGZipB64/);
    route = () => ({ status: 201, raw: '<html>ok</html>' });
    expect(await unavailable(port().authorize(DPS_XML))).toMatchObject({ mayHaveBeenReceived: true });
  });

  it('a refused connection is unavailable, not received', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port: closed } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await unavailable(port({ url: `https://127.0.0.1:${closed}` }).authorize(DPS_XML));
    expect(error.mayHaveBeenReceived).toBe(false);
  });
});

describe('NFS-e port: consult', () => {
  it('a DPS Id that became a note: GET /dps/{id} then GET /nfse/{chave}, the note as the protocol', async () => {
    route = (r) => {
      if (r.method === 'GET' && r.path === `/nfse/SefinNacional/dps/${ID_DPS}`)
        return { status: 200, body: { ...header, idDps: ID_DPS, chaveAcesso: CHAVE } };
      if (r.method === 'GET' && r.path === `/nfse/SefinNacional/nfse/${CHAVE}`)
        return { status: 200, body: { ...header, chaveAcesso: CHAVE, nfseXmlGZipB64: gzipBase64(NFSE_XML) } };
      return undefined;
    };
    const result = await port().consult(ID_DPS);
    expect(result).toMatchObject({ cStat: '100', protocol: { chave: CHAVE, nProt: '9', xml: NFSE_XML } });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      `GET /nfse/SefinNacional/dps/${ID_DPS}`,
      `GET /nfse/SefinNacional/nfse/${CHAVE}`,
    ]);
  });

  it('404 on GET /dps: the DPS never became a note (404 of the code table), nothing else asked', async () => {
    route = () => ({ status: 404, body: { ...header, erro: erro('E404', 'DPS não encontrada') } });
    expect(await port().consult(ID_DPS)).toEqual({
      cStat: NFSE_CODES.dpsInexistente.code,
      xMotivo: NFSE_CODES.dpsInexistente.text,
      protocol: null,
    });
    expect(seen).toHaveLength(1);
  });

  it('any other answer to GET /dps, and a 50-digit key the environment will not show, settle nothing', async () => {
    route = () => ({ status: 400, body: { ...header, erro: erro('E400', 'requisição inválida') } });
    expect(await unavailable(port().consult(ID_DPS))).toMatchObject({ mayHaveBeenReceived: true });
    route = () => ({ status: 502, raw: '' });
    expect(await unavailable(port().consult(ID_DPS))).toMatchObject({ mayHaveBeenReceived: true });
    route = () => ({ status: 404, body: { ...header, erro: erro('E404', 'NFS-e não encontrada') } });
    expect(await unavailable(port().consult(CHAVE))).toMatchObject({ mayHaveBeenReceived: true });
  });

  it('a 50-digit key is read with GET /nfse/{chave} alone', async () => {
    route = () => ({
      status: 200,
      body: { ...header, chaveAcesso: CHAVE, nfseXmlGZipB64: gzipBase64(NFSE_XML) },
    });
    expect(await port().consult(CHAVE)).toMatchObject({ cStat: '100', protocol: { chave: CHAVE } });
    expect(seen.map((s) => s.path)).toEqual([`/nfse/SefinNacional/nfse/${CHAVE}`]);
  });
});

describe('NFS-e port: events (POST /nfse/{chave}/eventos)', () => {
  it('201: event registered (135) with the <evento> and its nDFSe', async () => {
    route = (r) =>
      r.method === 'POST' && r.path === `/nfse/SefinNacional/nfse/${CHAVE}/eventos`
        ? { status: 201, body: { ...header, eventoXmlGZipB64: gzipBase64(EVENTO_XML) } }
        : undefined;
    const { code, text } = NFSE_CODES.eventoRegistrado;
    expect(await port().sendEvent(PED_REG_EVENTO)).toEqual({
      cStat: code,
      xMotivo: text,
      result: { cStat: code, xMotivo: text, nProt: '77', xml: EVENTO_XML },
    });
    const body = JSON.parse(seen[0]?.body ?? '{}') as { pedidoRegistroEventoXmlGZipB64: string };
    expect(gunzipBase64(body.pedidoRegistroEventoXmlGZipB64)).toBe(PED_REG_EVENTO);
  });

  it('a rejection: its code in the answer and in the result, no event XML', async () => {
    route = () => ({ status: 400, body: { ...header, erro: erro('E108', NFSE_CODES.nfseCancelada.text) } });
    const xMotivo = `E108 ${NFSE_CODES.nfseCancelada.text}`;
    expect(await port().sendEvent(PED_REG_EVENTO)).toEqual({
      cStat: 'E108',
      xMotivo,
      result: { cStat: 'E108', xMotivo, nProt: null, xml: '' },
    });
  });
});

describe('NFS-e port: municipal parameters and status', () => {
  const convenio = (aderente: 0 | 1) => ({
    status: 200,
    body: {
      mensagem: null,
      parametrosConvenio: { aderenteAmbienteNacional: aderente, aderenteEmissorNacional: 1 },
    },
  });

  it('convênio: joined, not joined (also a 404), cached for an hour', async () => {
    route = (r) => (r.path === '/nfse/parametrizacao/1505486/convenio' ? convenio(1) : convenio(0));
    const p = port();
    expect(await p.convenio('1505486')).toEqual({ aderente: true, mensagem: null });
    expect(await p.convenio('1505486')).toEqual({ aderente: true, mensagem: null });
    expect(seen).toHaveLength(1);
    expect(await p.convenio('3550308')).toEqual({ aderente: false, mensagem: null });
    route = () => ({ status: 404, body: { mensagem: 'Município não encontrado' } });
    expect(await p.convenio('9999999')).toEqual({ aderente: false, mensagem: 'Município não encontrado' });
    expect(seen).toHaveLength(3);
    nowMs += MUNICIPAL_CACHE_MS + 1;
    route = () => convenio(0);
    expect(await p.convenio('1505486')).toEqual({ aderente: false, mensagem: null });
    expect(seen).toHaveLength(4);
  });

  it('convênio: a failure is "could not tell" and is not cached', async () => {
    const p = port();
    route = () => ({ status: 500, raw: 'erro' });
    const failed = await p.convenio('1505486');
    expect(failed.aderente).toBeNull();
    expect(failed.mensagem).toMatch(/HTTP 500/);
    route = () => convenio(1);
    expect(await p.convenio('1505486')).toEqual({ aderente: true, mensagem: null });
    expect(seen).toHaveLength(2);
  });

  it('alíquota: the rate in force on the competência with two places, none, unknown; answers cached per month', async () => {
    const p = port();
    route = (r) => {
      if (r.path === '/nfse/parametrizacao/1505486/010101/2026-11-24/aliquota')
        return {
          status: 200,
          body: {
            aliquotas: {
              '01.01.01.000': [
                { Aliq: 3, DtIni: '2020-01-01T00:00:00', DtFim: '2025-12-31T00:00:00' },
                { Aliq: 2.5, DtIni: '2026-01-01T00:00:00', DtFim: null },
              ],
            },
          },
        };
      if (r.path.startsWith('/nfse/parametrizacao/1505486/070201/'))
        return { status: 404, body: { mensagem: 'Alíquota não encontrada', aliquotas: null } };
      return { status: 503, raw: '' };
    };
    expect(await p.aliquota('1505486', '010101', '2026-11-24')).toEqual({ state: 'found', aliquota: '2.50' });
    expect(await p.aliquota('1505486', '070201', '2026-11-24')).toEqual({
      state: 'none',
      mensagem: 'Alíquota não encontrada',
    });
    const unknown = await p.aliquota('3550308', '010101', '2026-11-24');
    expect(unknown.state).toBe('unknown');
    expect(seen).toHaveLength(3);
    // Same month: cached (found and none alike); the failure is asked again.
    expect(await p.aliquota('1505486', '010101', '2026-11-30')).toEqual({ state: 'found', aliquota: '2.50' });
    expect(await p.aliquota('1505486', '070201', '2026-11-01')).toMatchObject({ state: 'none' });
    expect((await p.aliquota('3550308', '010101', '2026-11-24')).state).toBe('unknown');
    expect(seen).toHaveLength(4);
  });

  it("status(): in service (107) when the company municipality's convênio answers, never from the cache", async () => {
    const p = port();
    route = () => convenio(1);
    await p.convenio('1505486');
    expect(await p.status()).toEqual({ cStat: '107', xMotivo: 'Serviço em operação' });
    expect(seen.map((s) => s.path)).toEqual([
      '/nfse/parametrizacao/1505486/convenio',
      '/nfse/parametrizacao/1505486/convenio',
    ]);
    route = () => ({ status: 500, raw: '' });
    expect(await unavailable(p.status())).toMatchObject({ mayHaveBeenReceived: true });
  });
});

describe('NFS-e port: mutual TLS', () => {
  it('every request the environment received carried the company A1 as client certificate', async () => {
    route = (r) => (r.path.endsWith('/convenio') ? convenioOk : { status: 201, body: nfseAnswer });
    const p = port({ cacheMs: 0 });
    await p.authorize(DPS_XML);
    await p.convenio('1505486');
    await p.sendEvent(PED_REG_EVENTO).catch(() => undefined);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen.map((s) => s.peerCn))).toEqual(new Set(['PRESTADOR TESTE LTDA:31305199000190']));
  });

  it('a certificate the environment does not trust gets no request in: unavailable, nothing handled', async () => {
    route = () => ({ status: 201, body: nfseAnswer });
    const error = await unavailable(port({ certificate: stranger }).authorize(DPS_XML));
    expect(error).toBeInstanceOf(AuthorityUnavailable);
    expect(seen).toEqual([]);
  });

  it('a client without a certificate is refused by the server before any request is handled', async () => {
    const error = await new Promise<unknown>((resolve) => {
      const req = https.request(
        `${base}/nfse/SefinNacional/nfse`,
        { method: 'POST', ca: serverId.certPem, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(undefined));
        },
      );
      req.on('error', resolve);
      req.end('{}');
    });
    expect(error).toBeInstanceOf(Error);
    expect(seen).toEqual([]);
  });
});

const convenioOk: Reply = {
  status: 200,
  body: { parametrosConvenio: { aderenteAmbienteNacional: 1 } },
};
