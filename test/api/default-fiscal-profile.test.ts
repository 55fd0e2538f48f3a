// The company's default fiscal profile over HTTP: made at creation from the CRT, shown on the company,
// changed through PUT /config, protected from deletion, and good enough to issue NF-e and NFC-e with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { DEFAULT_FISCAL_PROFILES } from '../../src-shared/tables/default-fiscal-profiles.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);

interface Company {
  id: string;
  crt: number;
  defaultFiscalProfileId: string | null;
}
interface Profile {
  id: string;
  companyId: string;
  name: string;
  CFOP: string;
  taxes: Record<string, unknown>;
}
interface Details {
  error: string;
  message: string;
  details: { field: string; error: string }[];
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

async function createCompany(base12: string, overrides: Record<string, unknown>): Promise<Company> {
  const res = await h.request('POST', '/v1/companies', { json: companyBody(cnpj(base12), overrides) });
  expect(res.status).toBe(201);
  return res.body as Company;
}

async function profile(id: string): Promise<Profile> {
  const res = await h.request('GET', `/v1/fiscal-profiles/${id}`);
  expect(res.status).toBe(200);
  return res.body as Profile;
}

describe('default fiscal profile of a company', () => {
  it('is made at creation from the CRT: Simples Nacional gets CSOSN 102 and PIS/COFINS 49', async () => {
    const company = await createCompany('310000000001', { crt: 1 });
    expect(company.defaultFiscalProfileId).toEqual(expect.any(String));
    const got = await h.request('GET', `/v1/companies/${company.id}`);
    expect((got.body as Company).defaultFiscalProfileId).toBe(company.defaultFiscalProfileId);
    const p = await profile(company.defaultFiscalProfileId!);
    expect(p).toMatchObject({
      companyId: company.id,
      name: DEFAULT_FISCAL_PROFILES.simples.name,
      CFOP: '5102',
      taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    });
    expect(p.taxes['IBSCBS']).toBeUndefined();
  });

  it('regime normal gets ICMS 00 at the UF rate, PIS/COFINS non-cumulative and IBS/CBS', async () => {
    const company = await createCompany('310000000002', {
      crt: 3,
      // An RJ IE (8 digits, RJ's check digit): the company's IE must pass its UF's check digits.
      ie: '77123458',
      endereco: {
        xLgr: 'Rua do Ouvidor',
        nro: '5',
        xBairro: 'Centro',
        cMun: '3304557',
        uf: 'RJ',
        cep: '20040030',
      },
    });
    const p = await profile(company.defaultFiscalProfileId!);
    expect(p.name).toBe(DEFAULT_FISCAL_PROFILES.normal.name);
    expect(p.taxes).toEqual({
      ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '20.00' },
      PIS: { CST: '01', pPIS: '1.65' },
      COFINS: { CST: '01', pCOFINS: '7.60' },
      IBSCBS: { CST: '000', cClassTrib: '000001' },
    });
  });

  it('the sandbox demo company has one too', async () => {
    const demo = (await h.request('GET', `/v1/companies/${h.companyId}`)).body as Company;
    expect(demo.defaultFiscalProfileId).toEqual(expect.any(String));
    expect((await profile(demo.defaultFiscalProfileId!)).companyId).toBe(h.companyId);
  });

  it('PUT /config chooses another profile of the same company; unknown or foreign ids are 400 on the field', async () => {
    const company = await createCompany('310000000003', { crt: 1 });
    const other = await createCompany('310000000004', { crt: 1 });
    const created = await h.request('POST', `/v1/fiscal-profiles?companyId=${company.id}`, {
      json: {
        name: 'Revenda com ST',
        CFOP: '5405',
        taxes: { ICMS: { orig: 0, CSOSN: '500' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
      },
    });
    expect(created.status).toBe(201);
    const st = created.body as Profile;

    const changed = await h.request('PUT', `/v1/companies/${company.id}/config`, {
      json: { defaultFiscalProfileId: st.id },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ success: true, message: expect.stringContaining('Revenda com ST') });
    const now = (await h.request('GET', `/v1/companies/${company.id}`)).body as Company;
    expect(now.defaultFiscalProfileId).toBe(st.id);

    for (const id of ['fpr_missing', other.defaultFiscalProfileId!]) {
      const res = await h.request('PUT', `/v1/companies/${company.id}/config`, {
        json: { defaultFiscalProfileId: id },
      });
      expect(res.status).toBe(400);
      expect((res.body as Details).details).toEqual([
        { field: 'defaultFiscalProfileId', error: 'no such fiscal profile in this company' },
      ]);
    }
    // Every faulty field at once: the sandbox company cannot go to produção and the id is foreign.
    const both = await h.request('PUT', `/v1/companies/${company.id}/config`, {
      json: { ambiente: 'producao', defaultFiscalProfileId: other.defaultFiscalProfileId },
    });
    expect(both.status).toBe(400);
    expect((both.body as Details).details.map((d) => d.field)).toEqual([
      'ambiente',
      'defaultFiscalProfileId',
    ]);
    expect(
      ((await h.request('GET', `/v1/companies/${company.id}`)).body as Company).defaultFiscalProfileId,
    ).toBe(st.id);
  });

  it('deleting the default profile is 409 naming why; once another is the default it can go', async () => {
    const company = await createCompany('310000000005', { crt: 1 });
    const first = company.defaultFiscalProfileId!;
    const refused = await h.request('DELETE', `/v1/fiscal-profiles/${first}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining('default'),
      details: [{ field: 'id', error: "is the company's default fiscal profile" }],
    });
    const second = (
      await h.request('POST', `/v1/fiscal-profiles?companyId=${company.id}`, {
        json: { ...DEFAULT_FISCAL_PROFILES.simples, name: 'Outro padrão', icmsAtUfRate: undefined },
      })
    ).body as Profile;
    expect(
      (
        await h.request('PUT', `/v1/companies/${company.id}/config`, {
          json: { defaultFiscalProfileId: second.id },
        })
      ).status,
    ).toBe(200);
    expect((await h.request('DELETE', `/v1/fiscal-profiles/${first}`)).status).toBe(204);
    expect((await h.request('DELETE', `/v1/fiscal-profiles/${second.id}`)).status).toBe(409);
  });
});

describe('issuing with the default profile (sandbox authority)', () => {
  type Doc = { id: string; status: string; protocolo: string | null };

  /** A company made through the API, with its certificate and CSC, ready to issue on the sandbox. */
  async function issuer(base12: string, overrides: Record<string, unknown>) {
    const company = await createCompany(base12, { xNome: 'EMISSORA PADRAO LTDA', ...overrides });
    const pfx = generateTestA1({ cnpj: cnpj(base12), legalName: 'EMISSORA PADRAO', password: 'pw123456' });
    const upload = await h.request('POST', `/v1/companies/${company.id}/certificate`, {
      json: { certificate: Buffer.from(pfx).toString('base64'), password: 'pw123456' },
    });
    expect(upload.status).toBe(201);
    const config = await h.request('PUT', `/v1/companies/${company.id}/config`, {
      json: { csc_nfce: 'ABCDEF0123456789ABCDEF0123456789ABCD', id_csc: '000001' },
    });
    expect(config.status).toBe(200);
    return company;
  }

  const items = (fiscalProfileId: string) => [
    // Only the profile: no CFOP, no taxes.
    {
      codigo: 'P1',
      descricao: 'Caderno 96 folhas',
      ncm: '48202000',
      unidade: 'UN',
      quantidade: 2,
      valorUnitario: 12.5,
      fiscalProfileId,
    },
    // Nothing at all: the company's default applies (simple mode).
    {
      codigo: 'P2',
      descricao: 'Caneta azul',
      ncm: '96081000',
      unidade: 'UN',
      quantidade: 3,
      valorUnitario: 2.4,
    },
  ];

  async function issueBoth(company: Company, address: Record<string, string>) {
    const defaultId = company.defaultFiscalProfileId!;
    const nfe = await h.request('POST', `/v1/nfe?companyId=${company.id}`, {
      json: {
        naturezaOperacao: 'Venda de mercadoria',
        indFinal: 1,
        customer: { cpfCnpj: '52998224725', nome: 'Maria da Silva', endereco: address },
        itens: items(defaultId),
        pagamentos: [{ forma: '17', valor: 32.2 }],
      },
    });
    expect(nfe.status).toBe(201);
    const nfeSent = await h.request('POST', `/v1/nfe/${(nfe.body as Doc).id}/send?sync=true`);
    expect(nfeSent.status).toBe(200);
    expect(nfeSent.body).toMatchObject({
      status: 'autorizada',
      protocolo: expect.stringMatching(/^\d{15}$/),
    });

    const nfce = await h.request('POST', `/v1/nfce?companyId=${company.id}&rascunho=true`, {
      json: { itens: items(defaultId), pagamentos: [{ forma: '01', valor: 40 }] },
    });
    expect(nfce.status).toBe(201);
    const nfceSent = await h.request('POST', `/v1/nfce/${(nfce.body as Doc).id}/send?sync=true`);
    expect(nfceSent.status).toBe(200);
    expect(nfceSent.body).toMatchObject({
      status: 'autorizada',
      protocolo: expect.stringMatching(/^\d{15}$/),
    });

    const nfeXml = (await h.request('GET', `/v1/nfe/${(nfe.body as Doc).id}/xml`)).text;
    const nfceXml = (await h.request('GET', `/v1/nfce/${(nfce.body as Doc).id}/xml`)).text;
    for (const xml of [nfeXml, nfceXml]) {
      expect(xml).toContain('<protNFe');
      expect(xml.match(/<CFOP>5102<\/CFOP>/g)).toHaveLength(2);
    }
    return { nfeXml, nfceXml };
  }

  it('a Simples Nacional company: both notes authorized with CSOSN 102 and PIS/COFINS 49 on every item', async () => {
    const company = await issuer('320000000001', { crt: 1 });
    const { nfeXml, nfceXml } = await issueBoth(company, {
      logradouro: 'Rua Augusta',
      numero: '20',
      bairro: 'Consolação',
      xMun: 'São Paulo',
      UF: 'SP',
      CEP: '01305000',
    });
    for (const xml of [nfeXml, nfceXml]) {
      expect(xml).toContain('<CRT>1</CRT>');
      expect(xml.match(/<ICMSSN102><orig>0<\/orig><CSOSN>102<\/CSOSN><\/ICMSSN102>/g)).toHaveLength(2);
      expect(xml.match(/<PISOutr><CST>49<\/CST>/g)).toHaveLength(2);
      expect(xml.match(/<COFINSOutr><CST>49<\/CST>/g)).toHaveLength(2);
      expect(xml).not.toContain('<IBSCBS>');
    }
  });

  it('a regime-normal company in RJ: both notes authorized with ICMS 00 at 20 %, PIS/COFINS 01 and IBS/CBS', async () => {
    const company = await issuer('320000000002', {
      crt: 3,
      // An RJ IE (8 digits, RJ's check digit): the company's IE must pass its UF's check digits.
      ie: '77123458',
      endereco: {
        xLgr: 'Rua do Ouvidor',
        nro: '5',
        xBairro: 'Centro',
        cMun: '3304557',
        uf: 'RJ',
        cep: '20040030',
      },
    });
    const { nfeXml, nfceXml } = await issueBoth(company, {
      logradouro: 'Rua da Assembleia',
      numero: '10',
      bairro: 'Centro',
      xMun: 'Rio de Janeiro',
      UF: 'RJ',
      CEP: '20011000',
    });
    for (const xml of [nfeXml, nfceXml]) {
      expect(xml).toContain('<CRT>3</CRT>');
      // Item 1: 2 × 12.50 = 25.00 → ICMS 20 % = 5.00, PIS 1.65 % = 0.41, COFINS 7.6 % = 1.90.
      expect(xml).toContain(
        '<ICMS00><orig>0</orig><CST>00</CST><modBC>3</modBC><vBC>25.00</vBC><pICMS>20.0000</pICMS><vICMS>5.00</vICMS></ICMS00>',
      );
      expect(xml).toContain(
        '<PISAliq><CST>01</CST><vBC>25.00</vBC><pPIS>1.6500</pPIS><vPIS>0.41</vPIS></PISAliq>',
      );
      expect(xml).toContain(
        '<COFINSAliq><CST>01</CST><vBC>25.00</vBC><pCOFINS>7.6000</pCOFINS><vCOFINS>1.90</vCOFINS></COFINSAliq>',
      );
      expect(xml.match(/<IBSCBS><CST>000<\/CST><cClassTrib>000001<\/cClassTrib>/g)).toHaveLength(2);
    }
  });
});
