// The taxes the kind writes in a DPS besides the ISS: the IBSCBS group from the catalogue service or the
// defaults, and tribFed only outside the Simples; the default cIndOp of each nature is a code of annex C.
import { describe, expect, it } from 'vitest';
import { NFSE_IND_OP_CODES, defaultIndOp } from '../../../../src-shared/nfse-ibscbs.ts';
import { dpsTaxesOf } from './prepare.ts';

const CPF = '52998224725';
const CNPJ = '11222333000181';
const unclassified = { ibscbs_cst: null, c_class_trib: null, c_ind_op: null, pis_cofins_cst: null };

describe('dpsTaxesOf', () => {
  it('defaults: CST 000 / 000001, cIndOp by the nature, indFinal by the taker, no tribFed in the Simples', () => {
    expect(dpsTaxesOf(undefined, { cTribNac: '140101', tomadorCpfCnpj: CPF, opSimpNac: 3 })).toEqual({
      IBSCBS: { cIndOp: '050101', indFinal: 1, CST: '000', cClassTrib: '000001' },
      tribFed: null,
    });
    expect(dpsTaxesOf(unclassified, { cTribNac: '010101', tomadorCpfCnpj: CNPJ, opSimpNac: 1 })).toEqual({
      IBSCBS: { cIndOp: '100301', indFinal: 0, CST: '000', cClassTrib: '000001' },
      tribFed: { piscofinsCST: '01', vRetIRRF: 0n, vRetCSLL: 0n, vRetCP: 0n },
    });
  });

  it("the catalogue service's classification wins; a CST without its class is not used", () => {
    const service = { ibscbs_cst: '200', c_class_trib: '200029', c_ind_op: '030102', pis_cofins_cst: '06' };
    expect(dpsTaxesOf(service, { cTribNac: '040101', tomadorCpfCnpj: CPF, opSimpNac: 1 })).toEqual({
      IBSCBS: { cIndOp: '030102', indFinal: 1, CST: '200', cClassTrib: '200029' },
      tribFed: { piscofinsCST: '06', vRetIRRF: 0n, vRetCSLL: 0n, vRetCP: 0n },
    });
    const half = { ...unclassified, ibscbs_cst: '200' };
    expect(dpsTaxesOf(half, { cTribNac: '040101', tomadorCpfCnpj: CPF, opSimpNac: 2 }).IBSCBS).toEqual({
      cIndOp: '030101',
      indFinal: 1,
      CST: '000',
      cClassTrib: '000001',
    });
  });

  it('every item of the national list gets a code of annex C', () => {
    const items = [...Array.from({ length: 40 }, (_, i) => String(i + 1).padStart(2, '0')), '99'];
    for (const item of items) {
      for (const subitem of ['01', '02', '05']) {
        expect(NFSE_IND_OP_CODES).toContain(defaultIndOp(`${item}${subitem}01`));
      }
    }
    expect(defaultIndOp('070101')).toBe('100301');
    expect(defaultIndOp('070201')).toBe('020201');
    expect(defaultIndOp('160101')).toBe('060101');
    expect(defaultIndOp('160201')).toBe('070101');
    expect(defaultIndOp('220101')).toBe('080101');
    expect(defaultIndOp('060101')).toBe('030101');
  });
});
