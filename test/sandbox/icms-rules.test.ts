// The sandbox authority's ICMS rules (src-main/sandbox/rules/icms.ts) over real HTTPS: notes the service builds
// with DIFAL, FCP, FCP-ST, desoneração and retained ST are authorized; each rule rejects a note edited (and
// signed again) to break it, with the MOC cStat and its official text.
import { describe, expect, it } from 'vitest';
import type { PrepareContext } from '../../src-main/fiscal/nfe/prepare.ts';
import type { CStat } from '../../src-main/sandbox/cstat.ts';
import type { FiscalProfileView, FiscalTaxes, ProductView } from '../../src-shared/contracts/catalog.ts';
import type { CustomerView } from '../../src-shared/contracts/customers.ts';
import { customers, emitter, products, profiles } from '../fixtures/fiscal.ts';
import { answerFor, expectRejection, nfce, nfe, resign, useSandbox } from './harness.ts';

const stamp = '2026-01-01T00:00:00.000Z';
const PIS_COFINS = { PIS: { CST: '01', pPIS: '1.65' }, COFINS: { CST: '01', pCOFINS: '7.60' } } as const;
const IBSCBS = { IBSCBS: { CST: '000', cClassTrib: '000001' } };

const TAXES: Record<string, FiscalTaxes> = {
  difal: { ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '12', pFCPUFDest: '2' }, ...PIS_COFINS, ...IBSCBS },
  fcp: {
    ICMS: {
      orig: 0,
      CST: '10',
      modBC: 3,
      pICMS: '18',
      pFCP: '2',
      pFCPST: '2',
      st: { modBCST: 4, pMVAST: '40', pICMSST: '18' },
    },
    ...PIS_COFINS,
    ...IBSCBS,
  },
  deson: { ICMS: { orig: 0, CST: '40', motDesICMS: 9 }, ...PIS_COFINS, ...IBSCBS },
  ret: {
    ICMS: { orig: 0, CST: '60', ret: { vBCSTRetUnit: '120', pST: '18' }, pFCPSTRet: '2' },
    ...PIS_COFINS,
    ...IBSCBS,
  },
};

const profileOf = (id: string, taxes: FiscalTaxes): FiscalProfileView => ({
  id: `fpr_${id}`,
  companyId: 'cmp',
  name: id,
  CFOP: '5102',
  taxes,
  createdAt: stamp,
  updatedAt: stamp,
});
const productOf = (id: string): ProductView => ({
  ...(products.prd_cafe as ProductView),
  id: `prd_${id}`,
  cProd: id,
  vUnCom: '100.00',
  fiscalProfileId: `fpr_${id}`,
});
const consumerIn = (uf: string, id: string): CustomerView => ({
  ...(customers.cus_pj as CustomerView),
  id,
  cpf: '12345678909',
  cnpj: null,
  ie: null,
  indIEDest: 9,
  xNome: 'Consumidor Final',
  endereco: {
    xLgr: 'Rua B',
    nro: '2',
    xCpl: null,
    xBairro: 'Centro',
    cMun: uf === 'RJ' ? '3304557' : '3550308',
    xMun: uf === 'RJ' ? 'Rio de Janeiro' : 'Sao Paulo',
    uf,
    cep: uf === 'RJ' ? '20000000' : '01310100',
  },
});

const myProfiles: Record<string, FiscalProfileView> = {
  ...profiles,
  ...Object.fromEntries(Object.entries(TAXES).map(([id, t]) => [`fpr_${id}`, profileOf(id, t)])),
};
const myProducts: Record<string, ProductView> = {
  ...products,
  ...Object.fromEntries(Object.keys(TAXES).map((id) => [`prd_${id}`, productOf(id)])),
};
const myCustomers: Record<string, CustomerView> = {
  ...customers,
  cus_rj: consumerIn('RJ', 'cus_rj'),
  cus_sp: consumerIn('SP', 'cus_sp'),
};

/** A regime-normal emitter (CRT 3) whose lookups know the profiles above. */
const normal: Partial<PrepareContext> = {
  emit: emitter(3),
  lookup: {
    customer: (id) => myCustomers[id],
    product: (id) => myProducts[id],
    profile: (id) => myProfiles[id],
    defaultProfile: () => undefined,
  },
};

const sale = (customer: string, CFOP: string, ...productIds: string[]) => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer_id: customer,
  itens: productIds.map((id) => ({ product_id: `prd_${id}`, quantidade: 1, cfop: CFOP })),
  pagamentos: [{ forma: '01', valor: '1000.00' }],
});

/** Interstate sale SP → RJ to a non-contributor: DIFAL (ICMSUFDest). */
const difalNote = () => nfe(normal, sale('cus_rj', '6102', 'difal')).xml;
/** Internal sale to a consumer with FCP, FCP-ST, desoneração and retained ST. */
const mixedNote = () => nfe(normal, sale('cus_sp', '5102', 'fcp', 'deson', 'ret')).xml;

const UF_DEST =
  '<ICMSUFDest><vBCUFDest>100.00</vBCUFDest><pICMSUFDest>20.0000</pICMSUFDest><pICMSInter>12.00</pICMSInter>' +
  '<pICMSInterPart>100.0000</pICMSInterPart><vICMSUFDest>8.00</vICMSUFDest><vICMSUFRemet>0.00</vICMSUFRemet>' +
  '</ICMSUFDest>';

const sb = useSandbox();

describe('notes the service builds are authorized', () => {
  it('DIFAL SP → RJ: ICMSUFDest 12 % / 20 %, FCP 2 %, totals', async () => {
    const xml = difalNote();
    expect(xml).toContain(
      '<ICMSUFDest><vBCUFDest>100.00</vBCUFDest><vBCFCPUFDest>100.00</vBCFCPUFDest>' +
        '<pFCPUFDest>2.0000</pFCPUFDest><pICMSUFDest>20.0000</pICMSUFDest><pICMSInter>12.00</pICMSInter>' +
        '<pICMSInterPart>100.0000</pICMSInterPart><vFCPUFDest>2.00</vFCPUFDest><vICMSUFDest>8.00</vICMSUFDest>' +
        '<vICMSUFRemet>0.00</vICMSUFRemet></ICMSUFDest>',
    );
    expect(xml).toContain('<vFCPUFDest>2.00</vFCPUFDest><vICMSUFDest>8.00</vICMSUFDest><vICMSUFRemet>0.00');
    expect(await answerFor(sb(), xml)).toEqual({ cStat: '100', xMotivo: 'Autorizado o uso da NF-e' });
  });

  it('FCP, FCP-ST, desoneração and retained ST with their totals', async () => {
    const xml = mixedNote();
    // Item 1 (CST 10): vFCP 2.00; vBCST 140.00, vICMSST 7.20, vFCPST 2.80 − 2.00 = 0.80.
    expect(xml).toContain('<vBCFCP>100.00</vBCFCP><pFCP>2.0000</pFCP><vFCP>2.00</vFCP>');
    expect(xml).toContain('<vBCFCPST>140.00</vBCFCPST><pFCPST>2.0000</pFCPST><vFCPST>0.80</vFCPST>');
    // Item 2 (CST 40): 100.00 × 18 % (SP) waived, not deducted.
    expect(xml).toContain('<vICMSDeson>18.00</vICMSDeson><motDesICMS>9</motDesICMS><indDeduzDeson>0');
    // Item 3 (CST 60): 120.00 × 18 % retained, FCP 2.40.
    expect(xml).toContain('<vBCSTRet>120.00</vBCSTRet><pST>18.0000</pST><vICMSSTRet>21.60</vICMSSTRet>');
    expect(xml).toContain(
      '<vICMSDeson>18.00</vICMSDeson><vFCP>2.00</vFCP><vBCST>140.00</vBCST><vST>7.20</vST>' +
        '<vFCPST>0.80</vFCPST><vFCPSTRet>2.40</vFCPSTRet>',
    );
    expect(await answerFor(sb(), xml)).toEqual({ cStat: '100', xMotivo: 'Autorizado o uso da NF-e' });
  });
});

interface Case {
  name: string;
  cStat: CStat;
  nItem?: number;
  xml: () => string;
}

const edit = (xml: string, from: string | RegExp, to: string) => {
  const edited = resign(xml, (x) => x.replace(from, to));
  if (edited === resign(xml, (x) => x)) throw new Error(`edit did not apply: ${String(from)}`);
  return edited;
};

const CASES: Case[] = [
  {
    name: '694 DIFAL operation without ICMSUFDest',
    cStat: 694,
    nItem: 1,
    xml: () =>
      edit(
        difalNote().replace(
          /<vFCPUFDest>[^<]*<\/vFCPUFDest><vICMSUFDest>[^<]*<\/vICMSUFDest><vICMSUFRemet>[^<]*<\/vICMSUFRemet>/,
          '',
        ),
        /<ICMSUFDest>.*<\/ICMSUFDest>/,
        '',
      ),
  },
  {
    name: '695 ICMSUFDest on an internal sale',
    cStat: 695,
    nItem: 1,
    xml: () => edit(mixedNote(), /<\/COFINS>/, `</COFINS>${UF_DEST}`),
  },
  {
    name: '807 ICMSUFDest on an NFC-e',
    cStat: 807,
    nItem: 1,
    xml: () => edit(nfce().xml, /<\/COFINS>/, `</COFINS>${UF_DEST}`),
  },
  {
    name: '698 pICMSInter 7 % from SP to RJ (12 %)',
    cStat: 698,
    nItem: 1,
    xml: () => edit(difalNote(), '<pICMSInter>12.00</pICMSInter>', '<pICMSInter>7.00</pICMSInter>'),
  },
  {
    name: '699 pICMSInterPart other than 100 % after 2018',
    cStat: 699,
    nItem: 1,
    xml: () => edit(difalNote(), '<pICMSInterPart>100.0000', '<pICMSInterPart>80.0000'),
  },
  {
    name: '528 vICMS other than vBC × pICMS',
    cStat: 528,
    nItem: 1,
    xml: () => edit(mixedNote(), '<vICMS>18.00</vICMS>', '<vICMS>18.05</vICMS>'),
  },
  {
    name: '880 pFCP zero',
    cStat: 880,
    nItem: 1,
    xml: () =>
      edit(mixedNote(), '<pFCP>2.0000</pFCP><vFCP>2.00</vFCP>', '<pFCP>0.0000</pFCP><vFCP>2.00</vFCP>'),
  },
  {
    name: '881 pFCPST zero',
    cStat: 881,
    nItem: 1,
    xml: () => edit(mixedNote(), '<pFCPST>2.0000</pFCPST>', '<pFCPST>0.0000</pFCPST>'),
  },
  {
    name: '860 vFCP other than vBCFCP × pFCP',
    cStat: 860,
    nItem: 1,
    xml: () =>
      edit(mixedNote(), '<pFCP>2.0000</pFCP><vFCP>2.00</vFCP>', '<pFCP>2.0000</pFCP><vFCP>2.50</vFCP>'),
  },
  {
    name: '876 own vFCP on a DIFAL operation',
    cStat: 876,
    nItem: 1,
    xml: () =>
      edit(
        difalNote(),
        '<vICMS>12.00</vICMS></ICMS00>',
        '<vICMS>12.00</vICMS><pFCP>2.0000</pFCP><vFCP>2.00</vFCP></ICMS00>',
      ),
  },
  {
    name: '627 motDesICMS with vICMSDeson 0.00',
    cStat: 627,
    nItem: 2,
    xml: () =>
      edit(
        mixedNote(),
        '<vICMSDeson>18.00</vICMSDeson><motDesICMS>',
        '<vICMSDeson>0.00</vICMSDeson><motDesICMS>',
      ),
  },
  {
    name: '531 total vBC',
    cStat: 531,
    xml: () => edit(mixedNote(), /<ICMSTot><vBC>[^<]*</, '<ICMSTot><vBC>1.00<'),
  },
  {
    name: '532 total vICMS',
    cStat: 532,
    xml: () => edit(mixedNote(), /<vICMS>18.00<\/vICMS><vICMSDeson>/, '<vICMS>1.00</vICMS><vICMSDeson>'),
  },
  {
    name: '795 total vICMSDeson (an item changed)',
    cStat: 795,
    xml: () =>
      edit(
        mixedNote(),
        '<vICMSDeson>18.00</vICMSDeson><motDesICMS>',
        '<vICMSDeson>17.00</vICMSDeson><motDesICMS>',
      ),
  },
  {
    name: '861 total vFCP',
    cStat: 861,
    xml: () => edit(mixedNote(), '<vFCP>2.00</vFCP><vBCST>', '<vFCP>2.01</vFCP><vBCST>'),
  },
  {
    name: '533 total vBCST',
    cStat: 533,
    xml: () => edit(mixedNote(), '<vBCST>140.00</vBCST><vST>', '<vBCST>141.00</vBCST><vST>'),
  },
  {
    name: '534 total vST (an item changed)',
    cStat: 534,
    xml: () => edit(mixedNote(), '<vICMSST>7.20</vICMSST>', '<vICMSST>7.21</vICMSST>'),
  },
  {
    name: '862 total vFCPST (an item changed)',
    cStat: 862,
    xml: () => edit(mixedNote(), '<vFCPST>0.80</vFCPST></ICMS10>', '<vFCPST>0.81</vFCPST></ICMS10>'),
  },
  {
    name: '859 total vFCPSTRet',
    cStat: 859,
    xml: () => edit(mixedNote(), '<vFCPSTRet>2.40</vFCPSTRet><vProd>', '<vFCPSTRet>2.41</vFCPSTRet><vProd>'),
  },
  {
    name: '798 total vFCPUFDest',
    cStat: 798,
    xml: () =>
      edit(
        difalNote(),
        '<vFCPUFDest>2.00</vFCPUFDest><vICMSUFDest>8.00</vICMSUFDest><vICMSUFRemet>0.00</vICMSUFRemet><vFCP>',
        '<vFCPUFDest>2.01</vFCPUFDest><vICMSUFDest>8.00</vICMSUFDest><vICMSUFRemet>0.00</vICMSUFRemet><vFCP>',
      ),
  },
  {
    name: '799 total vICMSUFDest',
    cStat: 799,
    xml: () =>
      edit(
        difalNote(),
        '<vICMSUFDest>8.00</vICMSUFDest><vICMSUFRemet>0.00</vICMSUFRemet><vFCP>',
        '<vICMSUFDest>8.01</vICMSUFDest><vICMSUFRemet>0.00</vICMSUFRemet><vFCP>',
      ),
  },
  {
    name: '800 total vICMSUFRemet',
    cStat: 800,
    xml: () =>
      edit(difalNote(), '<vICMSUFRemet>0.00</vICMSUFRemet><vFCP>', '<vICMSUFRemet>0.01</vICMSUFRemet><vFCP>'),
  },
];

describe('ICMS rules, one rejection each', () => {
  it.each(CASES)('$name', async (c) => {
    await expectRejection(sb(), c.xml(), c.cStat, c.nItem === undefined ? '' : ` [nItem:${c.nItem}]`);
  });
});
