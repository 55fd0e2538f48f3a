// Test-only builders of NfeModel/ItemModel for the tax and imposto tests: a plain 2026 NFC-e sale in SP by a
// regime-normal emitter, overridden field by field; and the small readers of what computeTaxes makes of one.
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { IBS_CBS_2026_RATES, type DestModel, type ItemModel, type NfeModel } from '../nfe/model.ts';
import { computeTaxes, type ComputedNote } from './compute.ts';

/** A profile: PIS/COFINS default to CST 07 (operação isenta, PISNT/COFINSNT). */
export function profile(
  icms: FiscalTaxes['ICMS'],
  rest: Partial<Omit<FiscalTaxes, 'ICMS'>> = {},
): FiscalTaxes {
  return { ICMS: icms, PIS: { CST: '07' }, COFINS: { CST: '07' }, ...rest };
}

export function item(taxes: FiscalTaxes, over: Partial<ItemModel> = {}): ItemModel {
  return {
    cProd: 'P1',
    cEAN: 'SEM GTIN',
    xProd: 'PRODUTO TESTE',
    NCM: '22030000',
    CEST: null,
    CFOP: '5102',
    uCom: 'UN',
    qCom: '1',
    vUnCom: '100',
    vDesc: null,
    vFrete: null,
    vSeg: null,
    vOutro: null,
    taxes,
    detailed: null,
    infAdProd: null,
    ...over,
  };
}

export function note(itens: ItemModel[], over: Partial<NfeModel> = {}): NfeModel {
  return {
    modelo: 65,
    serie: 1,
    nNF: 1,
    cNF: '12345678',
    dhEmi: new Date('2026-03-10T15:00:00-03:00'),
    tpAmb: 2,
    tpEmis: 1,
    contingency: null,
    natOp: 'VENDA',
    tpNF: 1,
    finNFe: 1,
    indFinal: 1,
    indPres: 1,
    indIntermed: null,
    verProc: 'balcao-test',
    emit: {
      CNPJ: '11222333000181',
      xNome: 'EMITENTE TESTE',
      xFant: null,
      IE: '111111111111',
      IM: null,
      CRT: 3,
      enderEmit: {
        xLgr: 'RUA A',
        nro: '1',
        xCpl: null,
        xBairro: 'CENTRO',
        cMun: '3550308',
        xMun: 'SAO PAULO',
        UF: 'SP',
        CEP: '01001000',
        fone: null,
      },
    },
    dest: null,
    itens,
    vFrete: null,
    vSeg: null,
    vDesc: null,
    vOutro: null,
    modFrete: 9,
    detPag: [],
    vTroco: null,
    infCpl: null,
    infAdFisco: null,
    NFref: [],
    infRespTec: null,
    ibsCbsRates: { ...IBS_CBS_2026_RATES },
    ...over,
  };
}

/** The same note issued by a Simples Nacional emitter (CRT 1). */
export function simplesNote(itens: ItemModel[], over: Partial<NfeModel> = {}): NfeModel {
  const n = note(itens, over);
  return { ...n, emit: { ...n.emit, CRT: 1 } };
}

/** A money text ('12.3') as cents. */
export const cents = (text: string): bigint => {
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int) * 100n + BigInt(frac.padEnd(2, '0'));
};

/** A rate text ('18.5') at scale 4. */
export const rate = (text: string): bigint => {
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int) * 10_000n + BigInt(frac.padEnd(4, '0'));
};

/** The computed note (fails the test on errors). */
export function computed(model: NfeModel): ComputedNote {
  const result = computeTaxes(model);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.note;
}

/** The computed note and its first item. */
export function only(model: NfeModel) {
  const n = computed(model);
  const first = n.itens[0];
  if (first === undefined) throw new Error('no item');
  return { n, it: first };
}

/** A non-contributor final consumer (CPF, indIEDest 9) living in `uf`. */
export function consumerIn(uf: NonNullable<DestModel['enderDest']>['UF']): DestModel {
  return {
    CPF: '12345678909',
    xNome: 'CONSUMIDOR',
    indIEDest: 9,
    enderDest: {
      xLgr: 'RUA B',
      nro: '2',
      xCpl: null,
      xBairro: 'CENTRO',
      cMun: '3304557',
      xMun: 'RIO DE JANEIRO',
      UF: uf,
      CEP: '20000000',
      fone: null,
    },
  };
}
