// ICMS depth over HTTP (issue 14 items 4, 8, 9): fiscal profiles take the FCP, DIFAL, desoneração, retained-ST and
// pauta fields; an interstate NF-e to a non-contributor consumer carries ICMSUFDest; a Simples Nacional ST
// item deducts the own ICMS without pICMS; rules of the authority are refused before signing (422 + cStat).
import { beforeAll, describe, expect, it } from 'vitest';
import { cnpjSequence, type FiscalErrorBody as ErrorBody, uploadTestA1 } from './fiscal-helpers.ts';
import { companyBody, useHarness } from './harness.ts';

const h = useHarness();
/** A regime-normal company (CRT 3) in São Paulo with its A1: the demo company is Simples Nacional. */
let companyId: string;
beforeAll(async () => {
  const full = cnpjSequence('98761234')();
  const created = await h.request('POST', '/v1/companies', { json: companyBody(full, { crt: 3 }) });
  if (created.status !== 201) throw new Error(created.text);
  companyId = (created.body as { id: string }).id;
  const cert = await uploadTestA1(h, companyId, full);
  if (cert.status !== 201) throw new Error(cert.text);
});

const PIS_COFINS = { PIS: { CST: '01', pPIS: '1.65' }, COFINS: { CST: '01', pCOFINS: '7.60' } };
const rio = {
  logradouro: 'Rua B',
  numero: '2',
  bairro: 'Centro',
  codigoMunicipio: '3304557',
  uf: 'RJ',
  cep: '20000000',
};
const itemWith = (ICMS: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
  codigo: 'A1',
  descricao: 'Ventilador de mesa',
  ncm: '84145190',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: '1000.00',
  cfop: '6102',
  tributacao: { ICMS, ...PIS_COFINS },
  ...over,
});
/** An NF-e from the harness company (SP, regime normal) to a consumer in RJ without IE. */
const toConsumerInRio = (ICMS: Record<string, unknown>) => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer: { cpf: '52998224725', nome: 'Consumidor Final', endereco: rio },
  itens: [itemWith(ICMS)],
  pagamentos: [{ forma: '01', valor: '1000.00' }],
});

describe('fiscal profiles', () => {
  it('store FCP, DIFAL, desoneração, retained ST, effective ICMS and pauta fields as given', async () => {
    const taxes = {
      ICMS: {
        orig: 0,
        CST: '10',
        pICMS: '18',
        pFCP: '2',
        pFCPST: '2',
        pICMSUFDest: '20',
        pFCPUFDest: '2',
        st: { modBCST: 5, pICMSST: '18', vBCSTUnit: '12.5' },
      },
      ...PIS_COFINS,
    };
    const res = await h.request('POST', `/v1/fiscal-profiles?companyId=${companyId}`, {
      json: { name: 'ST por pauta com FCP', CFOP: '5405', taxes },
    });
    expect(res.status, res.text).toBe(201);
    expect((res.body as { taxes: unknown }).taxes).toMatchObject(taxes);
  });

  it('refuse a pauta without its value and a motDesICMS the CST does not admit, each on its field', async () => {
    const res = await h.request('POST', `/v1/fiscal-profiles?companyId=${companyId}`, {
      json: {
        name: 'errado',
        CFOP: '5102',
        taxes: {
          ICMS: { orig: 0, CST: '30', motDesICMS: 12, st: { modBCST: 5, pICMSST: '18' } },
          ...PIS_COFINS,
        },
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).details.map((d) => d.field).sort()).toEqual([
      'taxes.ICMS.motDesICMS',
      'taxes.ICMS.st.vBCSTUnit',
    ]);
  });
});

describe('NF-e', () => {
  it('to a non-contributor in another UF carries ICMSUFDest (SP → RJ: 12 %, RJ 20 % + FCP 2 %) and its totals', async () => {
    const res = await h.request('POST', `/v1/nfe?companyId=${companyId}`, {
      json: toConsumerInRio({ orig: 0, CST: '00', pICMS: '12', pFCPUFDest: '2' }),
    });
    expect(res.status, res.text).toBe(201);
    const id = (res.body as { id: string }).id;
    const xml = (await h.request('GET', `/v1/nfe/${id}/xml?companyId=${companyId}`)).text;
    expect(xml).toContain('<idDest>2</idDest>');
    expect(xml).toContain(
      '<ICMSUFDest><vBCUFDest>1000.00</vBCUFDest><vBCFCPUFDest>1000.00</vBCFCPUFDest>' +
        '<pFCPUFDest>2.0000</pFCPUFDest><pICMSUFDest>20.0000</pICMSUFDest><pICMSInter>12.00</pICMSInter>' +
        '<pICMSInterPart>100.0000</pICMSInterPart><vFCPUFDest>20.00</vFCPUFDest><vICMSUFDest>80.00</vICMSUFDest>' +
        '<vICMSUFRemet>0.00</vICMSUFRemet></ICMSUFDest>',
    );
    expect(xml).toContain('<vFCPUFDest>20.00</vFCPUFDest><vICMSUFDest>80.00</vICMSUFDest><vICMSUFRemet>0.00');
    // The embedded sandbox authority (rules 694-699, 798-800) authorizes it.
    const sent = await h.request('POST', `/v1/nfe/${id}/send?sync=true&companyId=${companyId}`);
    expect(sent.body, sent.text).toMatchObject({ status: 'autorizada' });
  });

  it('refuses pFCP 0 before signing: 422 fiscal_rejection 880 naming the field', async () => {
    const res = await h.request('POST', `/v1/nfe?companyId=${companyId}`, {
      json: {
        ...toConsumerInRio({ orig: 0, CST: '00', pICMS: '18', pFCP: '0' }),
        customer: {
          cpf: '52998224725',
          nome: 'Consumidor Final',
          endereco: { ...rio, codigoMunicipio: '3550308', uf: 'SP', cep: '01000000' },
        },
        itens: [itemWith({ orig: 0, CST: '00', pICMS: '18', pFCP: '0' }, { cfop: '5102' })],
      },
    });
    expect(res.status, res.text).toBe(422);
    const body = res.body as ErrorBody;
    expect(body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '880',
      xMotivo: 'Rejeicao: Percentual de FCP igual a zero',
    });
    expect(body.details).toEqual([
      { field: expect.stringMatching(/pFCP$/), error: expect.stringMatching(/880/) },
    ]);
  });
});
