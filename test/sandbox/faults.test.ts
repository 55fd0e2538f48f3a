// Fault injection, mutual TLS, the control API, restart persistence and the standalone CLI of the sandbox
// authority, over real HTTPS.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { soapContentType } from '../../src-main/authority/soap.ts';
import type { AuthorityService } from '../../src-main/authority/types.ts';
import { ManualClock } from '../../src-main/clock.ts';
import { FaultControl, type FaultDecision } from '../../src-main/sandbox/faults.ts';
import { startSandboxAuthority } from '../../src-main/sandbox/server.ts';
import {
  authorize,
  consSitNFe,
  consStatServ,
  CSC,
  EMIT_CNPJ,
  enviNFe,
  expectValid,
  nfce,
  protCStat,
  recipientCertificate,
  soapPost,
  startSandbox,
  T0,
  tag,
  tempDir,
  type Sandbox,
} from './harness.ts';

const MIN = 60_000;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
beforeEach(async () => {
  sb.clock.set(new Date(T0.getTime() + MIN));
  sb.authority.faults.clear();
  await sb.authority.faults.setOnline(true);
});

const status = (timeoutMs?: number) =>
  soapPost(sb.authority, 'NFeStatusServico4', consStatServ(), timeoutMs === undefined ? {} : { timeoutMs });

function control(
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  /** Default: the token of this start; null sends none. */
  token?: string | null,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const req = https.request(
      `${sb.authority.url}${url}`,
      {
        method,
        agent: false,
        ca: sb.authority.caPem,
        headers: {
          'Content-Type': 'application/json',
          ...(token === null ? {} : { 'X-Sandbox-Token': token ?? sb.authority.controlToken }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('transport: mutual TLS and SOAP', () => {
  it('refuses a request without a client certificate with HTTP 403 and a SOAP fault', async () => {
    const res = await soapPost(sb.authority, 'NFeStatusServico4', consStatServ(), { cert: null });
    expect(res.status).toBe(403);
    expect(res.body).toContain('<soap12:Fault>');
    expect(res.body).toContain('Certificado digital do cliente (TLS) não informado');
  });

  it('answers a SOAP fault when the action in Content-Type names another service', async () => {
    const res = await soapPost(sb.authority, 'NFeAutorizacao4', consStatServ(), {
      contentType: soapContentType('NFeStatusServico4'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('soap12:Sender');
    expect(res.body).toContain('não corresponde ao serviço NFeAutorizacao4');
  });

  it('404 for an unknown service, fault for an envelope without nfeDadosMsg', async () => {
    const unknown = await soapPost(sb.authority, 'NFeCadastro4' as AuthorityService, '', {
      rawBody: '<x/>',
      contentType: 'application/soap+xml; charset=utf-8',
    });
    expect(unknown.status).toBe(404);
    const bare = await soapPost(sb.authority, 'NFeStatusServico4', '', { rawBody: '<x/>' });
    expect(bare.status).toBe(400);
    expect(bare.body).toContain('nfeDadosMsg');
  });

  it('with trustedClientCas, only certificates issued by those CAs get through', async () => {
    const strict = await startSandboxAuthority({
      dataFile: path.join(tempDir(), 'strict.sqlite'),
      clock: new ManualClock(new Date(T0.getTime() + MIN)),
      trustedClientCas: [recipientCertificate().certificatePem],
    });
    try {
      expect((await soapPost(strict, 'NFeStatusServico4', consStatServ())).status).toBe(403);
      const ok = await soapPost(strict, 'NFeStatusServico4', consStatServ(), {
        cert: recipientCertificate(),
      });
      expect(tag(ok.answer ?? '', 'cStat')).toBe('107');
    } finally {
      await strict.close();
    }
  });
});

describe('faults', () => {
  it('offline: connections are refused before anything is sent; back online on the same port', async () => {
    const { port } = sb.authority;
    await sb.authority.faults.setOnline(false);
    expect(sb.authority.faults.online).toBe(false);
    await expect(status()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await sb.authority.faults.setOnline(true);
    expect(sb.authority.port).toBe(port);
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');
  });

  it('timeout: the request is read and never answered (once)', async () => {
    sb.authority.faults.timeout({ times: 1 });
    await expect(status(300)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');
    expect((await sb.authority.registry.exchanges()).some((e) => e.outcome === 'timeout')).toBe(true);
  });

  it('slow: the answer comes after the delay, only for the chosen services', async () => {
    sb.authority.faults.slow(400, { services: ['NFeStatusServico4'] });
    const started = Date.now();
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    // The other service is not delayed: asserted on the decision, since an elapsed-time upper bound
    // fails on a loaded machine.
    expect(sb.authority.faults.decideFor('NFeConsultaProtocolo4', null).slowMs).toBe(0);
    expect(sb.authority.faults.decideFor('NFeStatusServico4', null).slowMs).toBe(400);
    const consult = await soapPost(sb.authority, 'NFeConsultaProtocolo4', consSitNFe(nfce().chave));
    expect(tag(consult.answer ?? '', 'cStat')).toBe('217');
  });

  it('paused: status 108/109, authorizations answer the same at the lote level without processing', async () => {
    sb.authority.faults.pause(108);
    const s108 = (await status()).answer ?? '';
    expectValid(s108, 'retConsStatServ');
    expect(tag(s108, 'cStat')).toBe('108');
    expect(tag(s108, 'xMotivo')).toBe('Serviço Paralisado Momentaneamente (curto prazo)');
    const note = nfce();
    const lote = (await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]))).answer ?? '';
    expectValid(lote, 'retEnviNFe');
    expect(tag(lote, 'cStat')).toBe('108');
    expect(lote).not.toContain('<protNFe');
    expect(await sb.authority.registry.note(note.chave)).toBeUndefined();

    sb.authority.registry.setPaused(109);
    expect(tag((await status()).answer ?? '', 'xMotivo')).toBe('Serviço Paralisado sem Previsão');
    sb.authority.faults.pause(108, { services: ['NFeAutorizacao4'] });
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');
    expect(
      tag((await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]))).answer ?? '', 'cStat'),
    ).toBe('108');
    sb.authority.faults.pause(null);
    expect(
      protCStat((await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]))).answer ?? ''),
    ).toBe('100');
  });

  it('loseResponse: the note is authorized but the answer lost; consult finds it; the resend answers 204', async () => {
    sb.authority.faults.loseResponse({ services: ['NFeAutorizacao4'], times: 1 });
    const note = nfce();
    await expect(soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]))).rejects.toMatchObject({
      code: expect.stringMatching(/ECONNRESET|EPIPE/),
    });
    const sit = (await soapPost(sb.authority, 'NFeConsultaProtocolo4', consSitNFe(note.chave))).answer ?? '';
    expectValid(sit, 'retConsSitNFe');
    expect(tag(sit, 'cStat')).toBe('100');
    const nProt = tag(sit, 'nProt');
    expect(nProt).toMatch(/^[0-9]{15}$/);

    const resend = (await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]))).answer ?? '';
    expect(protCStat(resend)).toBe('204');
    expect(tag(resend, 'xMotivo', '<protNFe')).toContain(`[nProt:${nProt}]`);
    expect(await sb.authority.registry.authorizationCount(note.chave)).toBe(1);
    const lost = (await sb.authority.registry.exchanges()).filter((e) => e.outcome === 'lost');
    expect(lost.at(-1)).toMatchObject({ service: 'NFeAutorizacao4', cStat: '104', clientCnpj: EMIT_CNPJ });
  });

  it('random: the same seed gives the same faults', () => {
    const draws = (seed: number): FaultDecision[] => {
      const control = new FaultControl(async () => undefined);
      control.random({ seed, refuse: 0.2, timeout: 0.1, slow: 0.1, slowMs: 10, pause: 0.1, lose: 0.2 });
      return Array.from({ length: 40 }, () => control.decide('NFeAutorizacao4'));
    };
    const a = draws(7);
    expect(draws(7)).toEqual(a);
    expect(draws(8)).not.toEqual(a);
    const kinds = new Set(
      a.map((d) =>
        d.refuse
          ? 'refuse'
          : d.timeout
            ? 'timeout'
            : d.lose
              ? 'lose'
              : d.paused
                ? 'pause'
                : d.slowMs
                  ? 'slow'
                  : 'ok',
      ),
    );
    expect([...kinds].sort()).toEqual(['lose', 'ok', 'pause', 'refuse', 'slow', 'timeout']);
    expect(() => new FaultControl(async () => undefined).random({ seed: 1, refuse: 0.7, lose: 0.5 })).toThrow(
      /add up/,
    );
  });

  it('chaos: a consult-before-resend client ends with every note authorized exactly once', async () => {
    sb.authority.faults.random({
      seed: 2026,
      refuse: 0.15,
      timeout: 0.1,
      slow: 0.1,
      slowMs: 30,
      pause: 0.1,
      lose: 0.2,
    });
    const notes = Array.from({ length: 8 }, () => nfce());
    for (const note of notes) {
      let done = false;
      for (let attempt = 0; attempt < 60 && !done; attempt++) {
        try {
          const answer =
            (await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([note.xml]), { timeoutMs: 400 }))
              .answer ?? '';
          const cStat = protCStat(answer);
          if (cStat === '100' || cStat === '204') done = true;
        } catch {
          try {
            const sit =
              (
                await soapPost(sb.authority, 'NFeConsultaProtocolo4', consSitNFe(note.chave), {
                  timeoutMs: 400,
                })
              ).answer ?? '';
            if (tag(sit, 'cStat') === '100') done = true;
          } catch {
            // unreachable again: retry
          }
        }
      }
      expect(done).toBe(true);
    }
    sb.authority.faults.random(null);
    for (const note of notes) expect(await sb.authority.registry.authorizationCount(note.chave)).toBe(1);
    const outcomes = new Set((await sb.authority.registry.exchanges()).map((e) => e.outcome));
    expect(outcomes.has('lost')).toBe(true);
    expect(outcomes.has('refused')).toBe(true);
  });

  it('over HTTP: GET /_sandbox/health and POST /_sandbox/faults (no client certificate needed)', async () => {
    const health = await control('GET', '/_sandbox/health');
    expect(health).toMatchObject({ status: 200, json: { status: 'ok', faults: { online: true } } });
    const paused = await control('POST', '/_sandbox/faults', {
      paused: { cStat: 109, services: ['NFeStatusServico4'] },
    });
    expect(paused).toMatchObject({
      status: 200,
      json: { paused: { cStat: 109, services: ['NFeStatusServico4'] } },
    });
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('109');
    expect((await control('POST', '/_sandbox/faults', { clear: true })).json).toMatchObject({ paused: null });
    // reject: a rejection code of the table, for NFeAutorizacao4 and once unless told otherwise.
    expect(await control('POST', '/_sandbox/faults', { reject: 228 })).toMatchObject({
      status: 200,
      json: { reject: { cStat: 228, services: ['NFeAutorizacao4'], remaining: 1 } },
    });
    expect((await control('POST', '/_sandbox/faults', { reject: 100 })).status).toBe(400);
    expect((await control('POST', '/_sandbox/faults', { reject: 12345 })).status).toBe(400);
    expect((await control('POST', '/_sandbox/faults', { reject: null })).json).toMatchObject({
      reject: null,
    });
    expect((await control('POST', '/_sandbox/faults', { online: false })).status).toBe(400);
    expect((await control('POST', '/_sandbox/faults', { timeout: { services: ['NFeX'] } })).status).toBe(400);

    const off = await control('POST', '/_sandbox/faults', { online: false, forMs: 400 });
    expect(off).toMatchObject({ status: 200, json: { online: false } });
    await new Promise((r) => setTimeout(r, 100));
    await expect(status()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await new Promise((r) => setTimeout(r, 500));
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');

    expect(
      (await control('POST', '/_sandbox/companies', { cnpj: '11222333000181', recipientDenied: true }))
        .status,
    ).toBe(200);
    await sb.authority.registry.denyRecipient('11222333000181', false);
  });

  it('the control port needs the token of this start, kept 0600 beside the data file (issue 12 item 5)', async () => {
    for (const [url, body] of [
      ['/_sandbox/health', undefined],
      ['/_sandbox/faults', { online: false, forMs: 60_000 }],
      ['/_sandbox/companies', { cnpj: '11222333000181', emitterDenied: true }],
    ] as const) {
      const method = body === undefined ? 'GET' : 'POST';
      const none = await control(method, url, body, null);
      expect(none.status).toBe(401);
      expect(JSON.stringify(none.json)).toContain('X-Sandbox-Token');
      expect((await control(method, url, body, 'x'.repeat(43))).status).toBe(401);
    }
    // Nothing was switched by the refused calls.
    expect(sb.authority.faults.online).toBe(true);
    expect(tag((await status()).answer ?? '', 'cStat')).toBe('107');

    const file = sb.authority.controlTokenFile;
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(sb.authority.controlToken);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(sb.authority.controlToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await control('GET', '/_sandbox/faults')).status).toBe(200);
  });
});

describe('persistence and standalone use', () => {
  it('survives a restart: same server certificate, same notes, protocol numbers continue', async () => {
    const dataFile = path.join(tempDir(), 'authority.sqlite');
    const clock = new ManualClock(new Date(T0.getTime() + MIN));
    const first = await startSandboxAuthority({ dataFile, clock });
    await first.registry.setCsc(EMIT_CNPJ, CSC.id, CSC.token);
    const note = nfce();
    const nProt = await authorize(first, note.xml);
    const caPem = first.caPem;
    await first.close();

    const second = await startSandboxAuthority({ dataFile, clock });
    try {
      expect(second.caPem).toBe(caPem);
      const sit = (await soapPost(second, 'NFeConsultaProtocolo4', consSitNFe(note.chave))).answer ?? '';
      expect(tag(sit, 'nProt')).toBe(nProt);
      const next = await authorize(second, nfce().xml); // the CSC registration survived too
      expect(BigInt(next)).toBe(BigInt(nProt) + 1n);
      expect(protCStat((await soapPost(second, 'NFeAutorizacao4', enviNFe([note.xml]))).answer ?? '')).toBe(
        '204',
      );
      expect((await second.registry.notes(EMIT_CNPJ)).map((n) => n.nProt)).toEqual([nProt, next]);
    } finally {
      await second.close();
    }
  });

  it('the CLI starts on BALCAO_SANDBOX_PORT with BALCAO_SANDBOX_DATA and writes the CA next to the data', async () => {
    const dir = tempDir();
    const dataFile = path.join(dir, 'state', 'authority.sqlite');
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src-main/sandbox/cli.ts')], {
      cwd: root,
      env: { ...process.env, BALCAO_SANDBOX_PORT: '0', BALCAO_SANDBOX_DATA: dataFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString('utf8');
          const found = /listening on (https:\/\/127\.0\.0\.1:[0-9]+)/.exec(out)?.[1];
          if (found) resolve(found);
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
        child.on('exit', (code) => reject(new Error(`cli exited ${code}: ${out}`)));
      });
      const caPem = fs.readFileSync(path.join(dir, 'state', 'sandbox-authority-ca.pem'), 'utf8');
      const res = await soapPost(
        { url, caPem } as Parameters<typeof soapPost>[0],
        'NFeStatusServico4',
        consStatServ(),
      );
      expect(tag(res.answer ?? '', 'cStat')).toBe('107');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
