// Devolução values come from the authorized note, prorated by the quantity returned (never recomputed from the
// profile's rates), with the returned share and IPI in impostoDevol (group UA) and vIPIDevol in the totals.
import { describe, expect, it } from 'vitest';
import { devolucaoPayload } from './devolucao.ts';
import type { DocumentRow } from '../../repository.ts';
import { prepareNfe, type PreparedNfe } from '../../../fiscal/nfe/prepare.ts';
import { emitter, prepareContext } from '../../../../test/fixtures/fiscal.ts';

const taxes = {
  ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '12.00' },
  IPI: { CST: '50', cEnq: '999', pIPI: '10.00' },
  PIS: { CST: '01', pPIS: '1.65' },
  COFINS: { CST: '01', pCOFINS: '7.60' },
};
// 3 × 1.02 = 3.06: ICMS 0.37, IPI 0.31, PIS 0.05, COFINS 0.23. Two of three back, prorated: ICMS 0.25, IPI
// 0.21, PIS 0.03, COFINS 0.15; recomputed on 2.04 they would be 0.24, 0.20, 0.03 and 0.16.
const sale = {
  naturezaOperacao: 'Venda de mercadoria',
  customerId: 'cus_pj',
  itens: [
    {
      codigo: 'A',
      descricao: 'Parafuso',
      ncm: '73181500',
      quantidade: 3,
      valorUnitario: '1.02',
      cfop: '6102',
      tributacao: taxes,
    },
  ],
  pagamentos: [{ forma: '01', valor: '3.37' }],
};

function issue(payload: unknown, nNF: number): PreparedNfe {
  const result = prepareNfe(payload, prepareContext(55, { emit: emitter(3), nNF }));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.document;
}

function authorized(): { row: DocumentRow; doc: PreparedNfe } {
  const doc = issue(sale, 10);
  const row = {
    id: 'doc_sale',
    payload_json: JSON.stringify(sale),
    xml: doc.xml,
    chave: doc.chave,
    modelo: 55,
    n_nf: 10,
    serie: 1,
  } as unknown as DocumentRow;
  return { row, doc };
}

const tag = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);

describe('devolução values', () => {
  it('returns part of an item with the values prorated from the sale, not recomputed', () => {
    const { row, doc } = authorized();
    expect(tag(doc.xml, 'vICMS')[0]).toBe('0.37');
    expect(tag(doc.xml, 'vIPI')[0]).toBe('0.31');
    expect(tag(doc.xml, 'vCOFINS')[0]).toBe('0.23');

    const payload = devolucaoPayload(row, { itens: [{ nItem: 1, quantidade: '2' }] });
    const dev = issue(payload, 11);
    const det = /<det nItem="1">.*<\/det>/.exec(dev.xml)?.[0] ?? '';
    expect(tag(det, 'qCom')).toEqual(['2.00']);
    expect(tag(det, 'vBC')[0]).toBe('2.04');
    expect(tag(det, 'vICMS')).toEqual(['0.25']);
    expect(tag(det, 'vCOFINS')).toEqual(['0.15']);
    expect(tag(det, 'vPIS')).toEqual(['0.03']);
    // IPI leaves the IPI group for impostoDevol: pDevol 66.67 % and 0.31 × 2/3 = 0.21.
    expect(det).not.toContain('<IPI><cEnq>');
    expect(det).toContain(
      '<impostoDevol><pDevol>66.67</pDevol><IPI><vIPIDevol>0.21</vIPIDevol></IPI></impostoDevol>',
    );
    expect(tag(dev.xml, 'vIPIDevol').at(-1)).toBe('0.21');
    expect(tag(dev.xml, 'vIPI').at(-1)).toBe('0.00');
    // vNF = vProd + vIPIDevol.
    expect(dev.vNF).toBe('2.25');
  });

  it('a whole return gives back exactly the values of the sale', () => {
    const { row, doc } = authorized();
    const dev = issue(devolucaoPayload(row, {}), 12);
    // The ICMS, PIS and COFINS groups and the totals' values are the sale's, byte for byte.
    for (const group of ['ICMS', 'PIS', 'COFINS']) {
      const of = (xml: string) => new RegExp(`<${group}>.*?</${group}>`).exec(xml)?.[0];
      expect(of(dev.xml)).toBeDefined();
      expect(of(dev.xml)).toBe(of(doc.xml));
    }
    for (const name of ['vICMS', 'vPIS', 'vCOFINS', 'vProd']) {
      expect(tag(dev.xml, name)).toEqual(tag(doc.xml, name));
    }
    expect(dev.xml).toContain('<pDevol>100.00</pDevol><IPI><vIPIDevol>0.31</vIPIDevol>');
    expect(tag(dev.xml, 'vIPIDevol').at(-1)).toBe(tag(doc.xml, 'vIPI').at(-1));
    expect(dev.vNF).toBe(doc.vNF);
  });

  it('impostoDevol on a note that is not a devolução is refused with cStat 354', () => {
    const payload = {
      ...sale,
      itens: [{ ...sale.itens[0], impostoDevol: { pDevol: '100', vIPIDevol: '0.31' } }],
    };
    const result = prepareNfe(payload, prepareContext(55, { emit: emitter(3) }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection?.cStat).toBe('354');
    expect(result.errors.map((e) => e.field)).toEqual(['itens[0].impostoDevol']);
  });
});
