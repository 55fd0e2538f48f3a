// The cashier's status bar route and the sandbox fault switches over /v1, against the running service and its
// embedded sandbox authority (real HTTPS + mTLS, real queue).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { createApiKey, createOrganization } from '../../src-main/api-keys/service.ts';
import { createLogger } from '../../src-main/logger.ts';
import { startService } from '../../src-main/service.ts';
import { companyBody, startHarness, tempDataDir, type Harness } from './harness.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);

const item = {
  codigo: 'A1',
  descricao: 'Agua mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 2,
  valor_unitario: '3.50',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};
const sale = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };

interface Status {
  ambiente: string;
  autoridade: { modo: string; online: boolean; desde: string | null; motivo: string | null };
  fila: { pendentes: number; contingencia: number };
  certificado: { validoAte: string; diasParaExpirar: number } | null;
}

let h: Harness;
let companyKey: string;
let otherCompanyId: string;

beforeAll(async () => {
  h = await startHarness();
  const other = await h.request('POST', '/v1/companies', { json: companyBody(cnpj('222333440001')) });
  expect(other.status).toBe(201);
  otherCompanyId = (other.body as { id: string }).id;
  const key = await h.request('POST', '/v1/api-keys', {
    json: { name: 'caixa-01', scope: 'company', companyId: h.companyId, plan: 'standard' },
  });
  expect(key.status).toBe(201);
  companyKey = (key.body as { key: string }).key;
});
afterAll(() => h.stop());

async function status(companyId = h.companyId, key?: string): Promise<Status> {
  const res = await h.request('GET', `/v1/companies/${companyId}/status`, key === undefined ? {} : { key });
  expect(res.status).toBe(200);
  return res.body as Status;
}

/** Runs the queue until `until` holds (the worker's own timer may run too; ticks are idempotent). */
async function drainUntil(until: (s: Status) => boolean): Promise<Status> {
  for (let i = 0; i < 60; i++) {
    await h.service.worker.tick();
    const s = await status();
    if (until(s)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the queue did not drain');
}

describe('GET /v1/companies/:companyId/status', () => {
  it('online with nothing queued: normal mode, empty queue, the demo certificate and its days left', async () => {
    const s = await status();
    expect(s).toMatchObject({
      ambiente: 'homologacao',
      autoridade: { modo: 'normal', online: true, desde: null, motivo: null },
      fila: { pendentes: 0, contingencia: 0 },
    });
    const cert = await h.request('GET', `/v1/companies/${h.companyId}/certificate`);
    const { notAfter, daysToExpiry } = cert.body as { notAfter: string; daysToExpiry: number };
    expect(s.certificado).toEqual({ validoAte: notAfter, diasParaExpirar: daysToExpiry });
    expect(s.certificado?.diasParaExpirar).toBeGreaterThan(0);
  });

  it('certificado is null for a company without a certificate', async () => {
    const s = await status(otherCompanyId);
    expect(s.certificado).toBeNull();
    expect(s.autoridade.modo).toBe('normal');
  });

  it('shows the NF-e SVC contingency, and NFC-e offline outranks it', async () => {
    const since = '2026-11-20T10:00:00.000Z';
    await h.service.db
      .insertInto('contingency_modes')
      .values({
        company_id: otherCompanyId,
        modelo: 55,
        mode: 'SVC-AN',
        since,
        reason: 'SEFAZ SP indisponivel',
      })
      .execute();
    try {
      expect((await status(otherCompanyId)).autoridade).toEqual({
        modo: 'SVC-AN',
        online: true,
        desde: since,
        motivo: 'SEFAZ SP indisponivel',
      });
      await h.service.db
        .insertInto('contingency_modes')
        .values({ company_id: otherCompanyId, modelo: 65, mode: 'offline', since, reason: 'sem resposta' })
        .execute();
      expect((await status(otherCompanyId)).autoridade).toMatchObject({ modo: 'offline', online: false });
    } finally {
      await h.service.db.deleteFrom('contingency_modes').where('company_id', '=', otherCompanyId).execute();
    }
  });

  it('answers 403 for a company out of the key reach, 404 for one that does not exist', async () => {
    expect((await status(h.companyId, companyKey)).ambiente).toBe('homologacao');
    const res = await h.request('GET', `/v1/companies/${otherCompanyId}/status`, { key: companyKey });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'forbidden' });
    const missing = await h.request('GET', '/v1/companies/00000000-0000-4000-8000-000000000000/status', {
      key: companyKey,
    });
    expect(missing.status).toBe(404);
    expect((await h.request('GET', `/v1/companies/${h.companyId}/status`, { key: null })).status).toBe(401);
  });

  it('sandbox offline → a sale: modo offline and contingencia 1; back online and drained → 0', async () => {
    const off = await h.request('POST', '/v1/sandbox/faults', { json: { online: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ online: false });
    try {
      const sold = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: sale });
      expect(sold.status).toBe(201);
      expect((sold.body as { status: string }).status).toBe('contingencia');
      const s = await status();
      expect(s.autoridade.modo).toBe('offline');
      expect(s.autoridade.online).toBe(false);
      expect(s.autoridade.desde).toBe(h.clock.now().toISOString());
      expect(s.autoridade.motivo).not.toBe('');
      expect(s.fila).toEqual({ pendentes: 1, contingencia: 1 });
      // The other company keeps its own mode: contingency rows are per company.
      expect((await status(otherCompanyId)).autoridade.modo).toBe('normal');
    } finally {
      const on = await h.request('POST', '/v1/sandbox/faults', { json: { online: true } });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({ online: true });
    }
    // Past the queue's backoff, so the next tick sends the offline note.
    h.clock.advance(10 * 60_000);
    const drained = await drainUntil((s) => s.fila.contingencia === 0 && s.fila.pendentes === 0);
    expect(drained.autoridade).toEqual({ modo: 'normal', online: true, desde: null, motivo: null });
  });
});

const organizationOf = async (companyId: string) =>
  (
    await h.service.db
      .selectFrom('companies')
      .select('organization_id')
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow()
  ).organization_id;

describe('/v1/sandbox/faults', () => {
  it('GET shows the switches; POST sets scoped faults and clears them', async () => {
    const initial = await h.request('GET', '/v1/sandbox/faults');
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({ online: true, timeout: null, paused: null, random: null });

    const set = await h.request('POST', '/v1/sandbox/faults', {
      json: {
        timeout: { services: ['NFeStatusServico4'], times: 2 },
        paused: 108,
        slow: { ms: 250, times: 1 },
      },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      timeout: { services: ['NFeStatusServico4'], remaining: 2 },
      paused: { services: 'all', remaining: null, cStat: 108 },
      slow: { services: 'all', remaining: 1, ms: 250 },
    });
    // The switches are the running authority's own for this organization, not a copy, and not global.
    const mine = h.service.sandbox?.faults.forScope(await organizationOf(h.companyId));
    expect(mine?.pausedFor('NFeAutorizacao4')).toBe(108);
    expect(h.service.sandbox?.faults.pausedFor('NFeAutorizacao4')).toBeNull();

    const cleared = await h.request('POST', '/v1/sandbox/faults', { json: { clear: true } });
    expect(cleared.body).toMatchObject({ online: true, timeout: null, slow: null, paused: null });
    expect(mine?.pausedFor('NFeAutorizacao4')).toBeNull();
  });

  it('reject: the next authorization refused with a cStat of the table; unknown codes are a 400', async () => {
    const set = await h.request('POST', '/v1/sandbox/faults', { json: { reject: 225 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      reject: { services: ['NFeAutorizacao4'], remaining: 1, cStat: 225 },
    });
    for (const reject of [100, 7777, { cStat: 225, services: ['Nada'] }]) {
      const bad = await h.request('POST', '/v1/sandbox/faults', { json: { reject } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ details: [{ field: 'reject' }] });
    }
    const cleared = await h.request('POST', '/v1/sandbox/faults', { json: { reject: null } });
    expect(cleared.body).toMatchObject({ reject: null });
  });

  it('reject and service scopes take the national NFS-e too: an NFS-e rejection code, NFSeSefinNacional', async () => {
    const set = await h.request('POST', '/v1/sandbox/faults', {
      json: {
        reject: { cStat: 'E012', services: ['NFSeSefinNacional'], times: 2 },
        timeout: { services: ['NFSeParametrosMunicipais'] },
      },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      nfseReject: { code: 'E012', services: ['NFSeSefinNacional'], remaining: 2 },
      timeout: { services: ['NFSeParametrosMunicipais'] },
    });
    for (const reject of ['E999', '100', { cStat: 'E001', services: ['NFSeNada'] }]) {
      const bad = await h.request('POST', '/v1/sandbox/faults', { json: { reject } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ details: [{ field: 'reject' }] });
    }
    const cleared = await h.request('POST', '/v1/sandbox/faults', { json: { clear: true } });
    expect(cleared.body).toMatchObject({ nfseReject: null, timeout: null });
  });

  it('offline for a while comes back by itself', async () => {
    const res = await h.request('POST', '/v1/sandbox/faults', { json: { online: false, forMs: 200 } });
    expect(res.body).toMatchObject({ online: false });
    const mine = h.service.sandbox?.faults.forScope(await organizationOf(h.companyId));
    for (let i = 0; i < 100 && mine?.online === false; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await h.request('GET', '/v1/sandbox/faults')).body).toMatchObject({ online: true });
  });

  it('reports every invalid field at once and changes nothing', async () => {
    const res = await h.request('POST', '/v1/sandbox/faults', {
      json: {
        timeout: { services: ['NFeNaoExiste'] },
        paused: 110,
        random: { seed: 1, refuse: 0.7, timeout: 0.6 },
        forMs: 100,
        extra: 1,
      },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field);
    // `body` names the unknown key `extra`.
    expect(fields.sort()).toEqual(['body', 'paused', 'random', 'timeout']);
    expect((await h.request('GET', '/v1/sandbox/faults')).body).toMatchObject({
      timeout: null,
      paused: null,
      random: null,
    });

    const forMsAlone = await h.request('POST', '/v1/sandbox/faults', { json: { forMs: 100 } });
    expect(forMsAlone.status).toBe(400);
    expect(forMsAlone.body).toMatchObject({ details: [{ field: 'forMs' }] });
  });

  it('needs an organization key (403 for a company key); 404 for an organization without sandbox companies', async () => {
    const byCompany = await h.request('POST', '/v1/sandbox/faults', {
      key: companyKey,
      json: { clear: true },
    });
    expect(byCompany.status).toBe(403);
    expect(byCompany.body).toMatchObject({ error: 'forbidden' });

    const org = await createOrganization(h.service.db, h.clock, 'Outra Rede');
    const key = await createApiKey(h.service.db, h.clock, org.id, {
      name: 'retaguarda',
      scope: 'organization',
      plan: 'standard',
    });
    const created = await h.request('POST', '/v1/companies', {
      key: key.key,
      json: companyBody(cnpj('444555660001'), { ambiente: 'producao', authority: 'sefaz' }),
    });
    expect(created.status).toBe(201);
    const res = await h.request('GET', '/v1/sandbox/faults', { key: key.key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
  });

  it('answers 404 not_found when the service runs no embedded sandbox', async () => {
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
    const logs: string[] = [];
    const service = await startService(
      { host: '127.0.0.1', port: 0, dataDir: tempDataDir(), masterKey: undefined, logLevel: 'warn' },
      {
        logger: createLogger('warn', (line) => logs.push(line)),
        startWorker: false,
        shutdownGraceMs: 2000,
        // Sandbox companies point at an authority run elsewhere: nothing to switch from this service.
        sandbox: { url: sandbox.url, caPem: sandbox.caPem },
      },
    );
    try {
      expect(service.sandbox).toBeNull();
      const apiKey = service.bootstrap.sandbox?.apiKey ?? '';
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${service.url}/v1/sandbox/faults`, {
          method,
          headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ clear: true }) } : {}),
        });
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: 'not_found' });
      }
    } finally {
      await service.close();
    }
  });
});
