// The PSP client against the sandbox PSP over real HTTPS with client certificates: token reuse and renewal,
// charge lifecycle, expiry, refusal, timeouts and a certificate the PSP does not know.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { generateTestA1, readPkcs12 } from '../../src-main/fiscal/certificate.ts';
import { PspClient, PspError, clearPspTokens, type PspConnection } from '../../src-main/pix/client.ts';
import { startSandboxPsp, type SandboxPsp } from '../../src-main/sandbox-psp/server.ts';
import { parseBrCode, parseTlv } from '../../src-shared/pix/br-code.ts';

const PASSWORD = 'senha-teste';
let psp: SandboxPsp;
let clock: ManualClock;
let pfx: Buffer;
let seq = 0;

const txid = () => `TESTE${String(Date.now())}${String(++seq).padStart(8, '0')}`.padEnd(30, 'X');

function connection(overrides: Partial<PspConnection> = {}): PspConnection {
  return {
    baseUrl: psp.apiUrl,
    tokenUrl: psp.tokenUrl,
    clientId: 'loja-1',
    clientSecret: 'segredo-1',
    pfx,
    passphrase: PASSWORD,
    caPem: psp.caPem,
    ...overrides,
  };
}

beforeAll(async () => {
  clock = new ManualClock('2026-11-24T12:00:00Z');
  psp = await startSandboxPsp({ clock, tokenTtlSeconds: 600 });
  pfx = Buffer.from(generateTestA1({ cnpj: '12345678000195', legalName: 'LOJA TESTE', password: PASSWORD }));
  const certPem = readPkcs12(pfx, PASSWORD).certificatePem;
  psp.registerClient({
    clientId: 'loja-1',
    clientSecret: 'segredo-1',
    certFingerprint256: new X509Certificate(certPem).fingerprint256,
    merchantName: 'Loja Teste',
    merchantCity: 'Sao Paulo',
  });
});

afterAll(async () => {
  await psp.close();
});

beforeEach(() => {
  clearPspTokens();
  psp.faults.apply({ recusar_proxima: false, atraso_ms: 0, timeout_proxima: false });
});

describe('PSP client against the sandbox PSP (HTTPS + mTLS)', () => {
  it('creates, reads and removes a charge, reusing one token for every call', async () => {
    const client = new PspClient(connection(), clock);
    const before = psp.tokensIssued();
    const id = txid();
    const cob = await client.createCob(id, { valor: '12.50', chave: 'loja@example.com', expiracao: 300 });
    expect(cob.status).toBe('ATIVA');
    expect(cob.valor.original).toBe('12.50');
    const fields = parseBrCode(cob.pixCopiaECola ?? '');
    expect(parseTlv(fields?.get('26') ?? '')?.get('25')).toBe(cob.location);
    expect((await client.getCob(id)).status).toBe('ATIVA');
    expect((await client.removeCob(id)).status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(psp.tokensIssued() - before).toBe(1);
    client.close();
  });

  it('renews the token once it is about to expire', async () => {
    const client = new PspClient(connection(), clock);
    const before = psp.tokensIssued();
    await client.createCob(txid(), { valor: '1.00', chave: 'k', expiracao: 300 });
    clock.advance(550_000); // 600 s token, renewed 30 s early
    await client.createCob(txid(), { valor: '1.00', chave: 'k', expiracao: 300 });
    clock.advance(20_000);
    await client.createCob(txid(), { valor: '1.00', chave: 'k', expiracao: 300 });
    expect(psp.tokensIssued() - before).toBe(2);
    client.close();
  });

  it('sees a paid charge as CONCLUIDA with its endToEndId, and an expired one removed by the PSP', async () => {
    const client = new PspClient(connection(), clock);
    const paid = txid();
    await client.createCob(paid, { valor: '7.00', chave: 'k', expiracao: 60 });
    await psp.pay(paid);
    const cob = await client.getCob(paid);
    expect(cob.status).toBe('CONCLUIDA');
    expect(cob.pix?.[0]?.endToEndId).toMatch(/^E99999999\d{12}[a-z0-9]{11}$/);
    expect(cob.pix?.[0]?.valor).toBe('7.00');

    const late = txid();
    await client.createCob(late, { valor: '7.00', chave: 'k', expiracao: 60 });
    clock.advance(61_000);
    expect((await client.getCob(late)).status).toBe('REMOVIDA_PELO_PSP');
    await expect(psp.pay(late)).rejects.toThrow(/REMOVIDA_PELO_PSP/);
    client.close();
  });

  it('turns a refusal problem body into a clear refused error', async () => {
    const client = new PspClient(connection(), clock);
    psp.faults.apply({ recusar_proxima: true });
    const error = await client
      .createCob(txid(), { valor: '3.00', chave: 'k', expiracao: 60 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PspError);
    expect((error as PspError).kind).toBe('refused');
    expect((error as PspError).message).toMatch(/Cobrança recusada/);
    // Only the next one: the following charge goes through.
    expect((await client.createCob(txid(), { valor: '3.00', chave: 'k', expiracao: 60 })).status).toBe(
      'ATIVA',
    );
    const invalid = await client
      .createCob('curto', { valor: '3.00', chave: 'k', expiracao: 60 })
      .catch((e: unknown) => e);
    expect((invalid as PspError).kind).toBe('refused');
    expect((invalid as PspError).message).toMatch(/txid/);
    client.close();
  });

  it('gives up after its timeout when the PSP does not answer', async () => {
    const client = new PspClient(connection({ timeoutMs: 300 }), clock);
    await client.createCob(txid(), { valor: '2.00', chave: 'k', expiracao: 60 }); // token cached
    psp.faults.apply({ timeout_proxima: true });
    const started = Date.now();
    const error = await client.getCob(txid()).catch((e: unknown) => e);
    expect((error as PspError).kind).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
    client.close();
  });

  it('is refused without the registered certificate or with a wrong secret', async () => {
    const other = Buffer.from(
      generateTestA1({ cnpj: '12345678000195', legalName: 'OUTRA', password: PASSWORD }),
    );
    const strange = new PspClient(connection({ pfx: other }), clock);
    const error = await strange
      .createCob(txid(), { valor: '2.00', chave: 'k', expiracao: 60 })
      .catch((e: unknown) => e);
    expect((error as PspError).kind).toBe('auth');
    expect((error as PspError).message).toMatch(/certificado/);
    strange.close();
    const noCert = new PspClient(connection({ pfx: null }), clock);
    expect(((await noCert.getCob(txid()).catch((e: unknown) => e)) as PspError).kind).toBe('auth');
    noCert.close();
    const wrong = new PspClient(connection({ clientSecret: 'errado' }), clock);
    const denied = await wrong.getCob(txid()).catch((e: unknown) => e);
    expect((denied as PspError).kind).toBe('auth');
    expect((denied as PspError).message).toMatch(/invalid_client/);
    wrong.close();
  });
});
