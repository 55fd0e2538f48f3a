// A note per IBS/CBS CST built through prepareNfe (which validates against the PL_010 XSD and signs with the
// test certificate): gRed and gDif land in TCIBS order and IBSCBSTot carries the items' vDif.
import { describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { emitter, NORMAL_TAXES, prepareContext, profiles } from '../../../test/fixtures/fiscal.ts';
import { prepareNfe } from './prepare.ts';

function build(modelo: 55 | 65, IBSCBS: FiscalTaxes['IBSCBS']): string {
  const base = prepareContext(modelo, { emit: emitter(3) });
  // NFC-e items carry no IPI group.
  const { IPI, ...withoutIpi } = NORMAL_TAXES;
  const taxes = modelo === 65 ? withoutIpi : { ...NORMAL_TAXES, IPI };
  const profile = { ...profiles['fpr_normal']!, taxes: { ...taxes, IBSCBS } };
  const ctx = { ...base, lookup: { ...base.lookup, profile: () => profile } };
  const payload =
    modelo === 65
      ? {
          itens: [{ productId: 'prd_cafe', quantidade: 10 }],
          pagamentos: [{ forma: 'dinheiro', valor: '500.00' }],
        }
      : {
          naturezaOperacao: 'Venda de mercadoria',
          customer_id: 'cus_pj',
          itens: [{ product_id: 'prd_cafe', quantidade: 10, cfop: '6102' }],
          pagamentos: [{ forma: '15', valor: '198.45', aPrazo: true }],
        };
  const result = prepareNfe(payload, ctx);
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  return result.document.xml;
}

describe('IBS/CBS groups through prepareNfe (XSD PL_010 + signature)', () => {
  it('CST 200 (class 200034, 60 %): gRed in each tax, before the value', () => {
    const xml = build(65, { CST: '200', cClassTrib: '200034' });
    expect(xml).toMatch(
      /<gIBSUF><pIBSUF>0\.1000<\/pIBSUF><gRed><pRedAliq>60\.0000<\/pRedAliq><pAliqEfet>0\.0400<\/pAliqEfet><\/gRed><vIBSUF>/,
    );
    expect(xml).toMatch(/<gCBS><pCBS>0\.9000<\/pCBS><gRed><pRedAliq>60\.0000<\/pRedAliq><pAliqEfet>0\.3600</);
  });

  it('CST 510 (class 510001) on an NF-e: gDif before the value, IBSCBSTot with the vDif sums', () => {
    const xml = build(55, { CST: '510', cClassTrib: '510001', pDif: '50' });
    expect(xml).toMatch(
      /<gCBS><pCBS>0\.9000<\/pCBS><gDif><pDif>50\.0000<\/pDif><vDif>[0-9.]+<\/vDif><\/gDif><vCBS>/,
    );
    const itemDif = /<gCBS><pCBS>[^<]+<\/pCBS><gDif><pDif>[^<]+<\/pDif><vDif>([0-9.]+)</.exec(xml)?.[1];
    expect(xml).toContain(`<gCBS><vDif>${itemDif}</vDif><vDevTrib>0.00</vDevTrib>`);
    expect(Number(itemDif)).toBeGreaterThan(0);
  });

  it('CST 515 (class 515001) on an NF-e: gDif then gRed', () => {
    const xml = build(55, { CST: '515', cClassTrib: '515001', pDif: '100' });
    expect(xml).toMatch(/<gDif><pDif>100\.0000<\/pDif><vDif>[0-9.]+<\/vDif><\/gDif><gRed><pRedAliq>60\.0000/);
  });

  it('CST 410 (class 410999): CST and class only, no totals group', () => {
    const xml = build(65, { CST: '410', cClassTrib: '410999' });
    expect(xml).toContain('<IBSCBS><CST>410</CST><cClassTrib>410999</cClassTrib></IBSCBS>');
    expect(xml).not.toContain('<IBSCBSTot>');
  });
});
