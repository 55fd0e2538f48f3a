// Companies, config, numbering, certificates, customers, fiscal profiles and products over HTTP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { DEMO_CNPJ } from '../../src-main/bootstrap.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const legacyPfx = fs.readFileSync(path.join(here, '../fixtures/certs/legacy-rc2-3des.pfx'));
const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);
const DAY = 86_400_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

function uploadJson(companyId: string, pfx: Uint8Array, password: string) {
  return h.request('POST', `/v1/companies/${companyId}/certificate`, {
    json: { certificate: Buffer.from(pfx).toString('base64'), password },
  });
}

describe('companies', () => {
  it('creates a company with an alphanumeric CNPJ, default series in both environments', async () => {
    const res = await h.request('POST', '/v1/companies', {
      json: companyBody('12.ABC.345/01DE-35', {
        xFant: 'Loja Alfa',
        crt: 1,
        csc: { id: 2, token: 'A'.repeat(36) },
      }),
    });
    expect(res.status).toBe(201);
    const company = res.body as {
      id: string;
      cnpj: string;
      endereco: { xMun: string; cep: string };
      csc: unknown;
    };
    expect(company.cnpj).toBe('12ABC34501DE35');
    expect(company.endereco).toMatchObject({ xMun: 'São Paulo', cep: '01305000' });
    expect(company.csc).toEqual({ id: '000002', configured: true });
    expect(JSON.stringify(company)).not.toContain('A'.repeat(36));
    const sequences = async (query: string) => {
      const res = await h.request('GET', `/v1/companies/${company.id}/nfe-sequences${query}`);
      expect(res.status).toBe(200);
      return res.body as { sequences: { modelo: string; environment: string }[] };
    };
    const seq = (modelo: '55' | '65', environment: string) => ({
      modelo,
      serie: 1,
      last_numero: 0,
      proximo_numero: 1,
      environment,
    });
    // Seed §4.5: without `environment`, the company's current one (homologacao at creation).
    expect(await sequences('')).toEqual({
      sequences: [seq('55', 'homologacao'), seq('65', 'homologacao')],
    });
    expect(await sequences('?environment=homologacao')).toEqual(await sequences(''));
    expect(await sequences('?environment=producao')).toEqual({
      sequences: [seq('55', 'producao'), seq('65', 'producao')],
    });
    expect((await sequences('?environment=all')).sequences).toEqual([
      seq('55', 'homologacao'),
      seq('65', 'homologacao'),
      seq('55', 'producao'),
      seq('65', 'producao'),
    ]);
    const bad = await h.request('GET', `/v1/companies/${company.id}/nfe-sequences?environment=teste`);
    expect(bad.status).toBe(400);
    expect((bad.body as { details: unknown[] }).details).toEqual([
      { field: 'environment', error: 'must be homologacao, producao or all' },
    ]);
  });

  it('refuses a municipality of another UF and a CNPJ with wrong check digits', async () => {
    const res = await h.request('POST', '/v1/companies', {
      json: companyBody('12ABC34501DE36', { endereco: { ...companyBody('x').endereco, cMun: '3304557' } }),
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string; error: string }[] }).details).toEqual([
      { field: 'cnpj', error: 'invalid CNPJ (check digits or format)' },
      { field: 'endereco.cMun', error: 'municipality code is not in UF SP' },
    ]);
  });

  it('PUT /config changes ambiente and CSC and answers {success, message}', async () => {
    const created = await h.request('POST', '/v1/companies', {
      json: companyBody(cnpj('556677880001'), { authority: 'sefaz' }),
    });
    const id = (created.body as { id: string }).id;
    const res = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: { ambiente: 'producao', csc_nfce: 'ABCDEF0123456789ABCDEF0123456789ABCD', id_csc: '000003' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Configuration updated: ambiente producao, CSC id 000003.',
    });
    const read = await h.request('GET', `/v1/companies/${id}`);
    expect(read.body).toMatchObject({ ambiente: 'producao', csc: { id: '000003', configured: true } });
    const row = await h.service.db
      .selectFrom('companies')
      .select('csc_token_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.csc_token_enc).not.toContain('ABCDEF');
    expect(h.service.secrets.openText(row.csc_token_enc as string)).toBe(
      'ABCDEF0123456789ABCDEF0123456789ABCD',
    );

    const half = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: { csc_nfce: 'ABCDEF0123456789' },
    });
    expect(half.status).toBe(400);
    expect((half.body as { details: unknown[] }).details).toEqual([
      { field: 'id_csc', error: 'csc_nfce and id_csc are set together' },
    ]);
    const sandboxProd = await h.request('PUT', `/v1/companies/${h.companyId}/config`, {
      json: { ambiente: 'producao' },
    });
    expect(sandboxProd.status).toBe(400);
    expect((sandboxProd.body as { details: { field: string }[] }).details[0]?.field).toBe('ambiente');
  });
});

describe('certificate upload', () => {
  it('shows the bootstrap certificate status with days to expiry', async () => {
    const res = await h.request('GET', `/v1/companies/${h.companyId}/certificate`);
    expect(res.status).toBe(200);
    const status = res.body as { cnpj: string; daysToExpiry: number; expired: boolean; subject: string };
    expect(status.cnpj).toBe(DEMO_CNPJ);
    expect(status.expired).toBe(false);
    expect(status.daysToExpiry).toBeGreaterThan(360);
    expect(status.subject).toContain(`:${DEMO_CNPJ}`);
  });

  it('wrong password → 422 naming the password', async () => {
    const pfx = generateTestA1({ cnpj: DEMO_CNPJ, legalName: 'DEMO', password: 'right-one' });
    const res = await uploadJson(h.companyId, pfx, 'wrong-one');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'certificate_invalid',
      message: 'The certificate password is wrong.',
      details: [{ field: 'password', error: 'wrong password' }],
    });
  });

  it('certificate of another CNPJ → 422', async () => {
    const other = cnpj('998877660001');
    const pfx = generateTestA1({ cnpj: other, legalName: 'OUTRA', password: 'pw123456' });
    const res = await uploadJson(h.companyId, pfx, 'pw123456');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'certificate_invalid',
      message: 'The certificate cannot sign for this company.',
      details: [
        {
          field: 'certificate',
          error: `certificate CNPJ ${other} does not belong to company CNPJ ${DEMO_CNPJ}`,
        },
      ],
    });
  });

  it('expired certificate → 422 with its end date; the active certificate stays', async () => {
    const now = h.clock.now().getTime();
    const pfx = generateTestA1({
      cnpj: DEMO_CNPJ,
      legalName: 'DEMO',
      password: 'pw123456',
      notBefore: new Date(now - 400 * DAY),
      notAfter: new Date(now - 10 * DAY),
    });
    const before = await h.request('GET', `/v1/companies/${h.companyId}/certificate`);
    const res = await uploadJson(h.companyId, pfx, 'pw123456');
    expect(res.status).toBe(422);
    const details = (res.body as { details: { field: string; error: string }[] }).details;
    expect(details).toHaveLength(1);
    expect(details[0]?.error).toMatch(/^certificate expired on \d{4}-\d\d-\d\dT/);
    const after = await h.request('GET', `/v1/companies/${h.companyId}/certificate`);
    expect(after.body).toEqual(before.body);
  });

  it('garbage file → 422 certificate_invalid on certificate', async () => {
    const res = await uploadJson(h.companyId, Buffer.from('not a pfx at all'), 'x');
    expect(res.status).toBe(422);
    expect((res.body as { details: { field: string }[] }).details[0]?.field).toBe('certificate');
  });

  it('accepts a legacy RC2/3DES PFX by multipart upload and stores it encrypted', async () => {
    const created = await h.request('POST', '/v1/companies', { json: companyBody('11222333000181') });
    const id = (created.body as { id: string }).id;
    const form = new FormData();
    form.append('password', 'legado123');
    form.append('certificate', new Blob([legacyPfx]), 'legado.pfx');
    const res = await h.request('POST', `/v1/companies/${id}/certificate`, { body: form });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      cnpj: '11222333000181',
      notAfter: '2046-01-01T00:00:00.000Z',
      expired: false,
      subject: expect.stringContaining('EMPRESA LEGADA LTDA:11222333000181'),
    });
    const row = await h.service.db
      .selectFrom('certificates')
      .selectAll()
      .where('company_id', '=', id)
      .where('active', '=', 1)
      .executeTakeFirstOrThrow();
    expect(row.password_enc).not.toContain('legado123');
    expect(h.service.secrets.openText(row.password_enc)).toBe('legado123');
    expect(h.service.secrets.open(row.pfx_enc).equals(legacyPfx)).toBe(true);
  });

  it('multipart without the file or password → 400 listing both', async () => {
    const res = await h.request('POST', `/v1/companies/${h.companyId}/certificate`, { body: new FormData() });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual([
      'certificate',
      'password',
    ]);
  });

  it('a replacement certificate becomes the only active one', async () => {
    const pfx = generateTestA1({ cnpj: DEMO_CNPJ, legalName: 'DEMO NOVO', password: 'pw123456' });
    const res = await uploadJson(h.companyId, pfx, 'pw123456');
    expect(res.status).toBe(201);
    const rows = await h.service.db
      .selectFrom('certificates')
      .select('active')
      .where('company_id', '=', h.companyId)
      .execute();
    expect(rows.map((r) => r.active).sort()).toEqual([0, 1]);
  });
});

describe('customers', () => {
  it('validates CPF and CNPJ check digits as field errors', async () => {
    const res = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: { cpf: '123.456.789-00', xNome: 'Fulano' },
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: unknown[] }).details).toEqual([
      { field: 'cpf', error: 'invalid CPF (check digits or format)' },
    ]);
    const pj = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: { cnpj: '11.222.333/0001-82', xNome: 'Empresa' },
    });
    expect((pj.body as { details: unknown[] }).details).toEqual([
      { field: 'cnpj', error: 'invalid CNPJ (check digits or format)' },
    ]);
  });

  it('creates, reads, replaces and searches customers; indIEDest derived', async () => {
    const created = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: {
        cnpj: '11.222.333/0001-81',
        xNome: 'Mercado Central',
        ie: '77.123.45-8',
        endereco: { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3304557', uf: 'RJ', cep: '20000000' },
      },
    });
    expect(created.status).toBe(201);
    const customer = created.body as { id: string; indIEDest: number; endereco: { xMun: string } };
    expect(customer.indIEDest).toBe(1);
    expect(customer.endereco.xMun).toBe('Rio de Janeiro');
    const dup = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: { cnpj: '11222333000181', xNome: 'Outro' },
    });
    expect(dup.status).toBe(409);
    const put = await h.request('PUT', `/v1/customers/${customer.id}`, {
      json: { cnpj: '11222333000181', xNome: 'Mercado Central Ltda', indIEDest: 9 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ xNome: 'Mercado Central Ltda', indIEDest: 9, endereco: null });
    const found = await h.request('GET', `/v1/customers?companyId=${h.companyId}&q=central`);
    expect(found.body).toMatchObject({ meta: { page: 1, limit: 20, total: 1, totalPages: 1 } });
    const byDoc = await h.request('GET', `/v1/customers?companyId=${h.companyId}&q=11.222.333/0001-81`);
    expect((byDoc.body as { meta: { total: number } }).meta.total).toBe(1);
  });

  it('an organization key that reaches several companies must say which one', async () => {
    const res = await h.request('GET', '/v1/customers');
    expect(res.status).toBe(400);
    expect((res.body as { details: unknown[] }).details).toEqual([
      {
        field: 'companyId',
        error: 'this organization key reaches several companies: say which one (companyId)',
      },
    ]);
  });
});

describe('fiscal profiles and products', () => {
  it('CRUD with a profile referenced by a product; a used profile cannot be deleted', async () => {
    const profile = await h.request('POST', '/v1/fiscal-profiles', {
      headers: { 'X-Company-Id': h.companyId },
      json: {
        name: 'Revenda SN',
        CFOP: '5102',
        taxes: {
          ICMS: { orig: 0, CSOSN: '102' },
          PIS: { CST: '49' },
          COFINS: { CST: '49' },
          IBSCBS: { CST: '000', cClassTrib: '000001' },
          pTotTrib: 31.45,
        },
      },
    });
    expect(profile.status).toBe(201);
    const p = profile.body as { id: string; taxes: { pTotTrib: string } };
    expect(p.taxes.pTotTrib).toBe('31.45');
    const missingSt = await h.request('POST', '/v1/fiscal-profiles', {
      headers: { 'X-Company-Id': h.companyId },
      json: {
        name: 'ST',
        CFOP: '5405',
        taxes: {
          ICMS: { orig: 0, CST: '10', pICMS: '18' },
          PIS: { CST: '01', pPIS: '1.65' },
          COFINS: { CST: '01', pCOFINS: '7.6' },
        },
      },
    });
    expect(missingSt.status).toBe(400);
    expect((missingSt.body as { details: unknown[] }).details).toEqual([
      { field: 'taxes.ICMS.st', error: 'this CST/CSOSN requires the ICMS-ST group' },
    ]);

    const product = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
      json: {
        cProd: '789',
        cEAN: '7891000315507',
        xProd: 'Café 500 g',
        NCM: '09012100',
        uCom: 'UN',
        vUnCom: 18.9,
        fiscalProfileId: p.id,
      },
    });
    expect(product.status).toBe(201);
    const prod = product.body as { id: string; vUnCom: string };
    expect(prod.vUnCom).toBe('18.9');
    const byEan = await h.request('GET', `/v1/products?companyId=${h.companyId}&cEAN=7891000315507`);
    expect((byEan.body as { meta: { total: number } }).meta.total).toBe(1);
    const inUse = await h.request('DELETE', `/v1/fiscal-profiles/${p.id}`);
    expect(inUse.status).toBe(409);
    const put = await h.request('PUT', `/v1/products/${prod.id}`, {
      json: { cProd: '789', xProd: 'Café 500 g', NCM: '09012100', uCom: 'UN', vUnCom: '19.90', ativo: false },
    });
    expect(put.body).toMatchObject({ vUnCom: '19.90', ativo: false, fiscalProfileId: null });
    expect((await h.request('DELETE', `/v1/fiscal-profiles/${p.id}`)).status).toBe(204);
    expect((await h.request('DELETE', `/v1/products/${prod.id}`)).status).toBe(204);
    expect((await h.request('GET', `/v1/products/${prod.id}`)).status).toBe(404);
  });

  it('refuses a price in binary-float disguise and a profile of another company', async () => {
    const res = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
      json: {
        cProd: 'X1',
        xProd: 'Item',
        NCM: '1234567',
        uCom: 'UN',
        vUnCom: '1e-12',
        fiscalProfileId: 'fpr_nope',
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual([
      'NCM',
      'vUnCom',
    ]);
    const ok = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
      json: {
        cProd: 'X1',
        xProd: 'Item',
        NCM: '22030000',
        uCom: 'UN',
        vUnCom: '1',
        fiscalProfileId: 'fpr_nope',
      },
    });
    expect(ok.status).toBe(400);
    expect((ok.body as { details: unknown[] }).details).toEqual([
      { field: 'fiscalProfileId', error: 'no such fiscal profile in this company' },
    ]);
  });
});
