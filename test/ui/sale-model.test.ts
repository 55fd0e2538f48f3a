// The cashier's sale model and the pt-BR formats, without a browser: exact totals, entry syntax, discounts,
// money typed the Brazilian way.
import { describe, expect, it } from 'vitest';
import type { ProductView } from '../../src-shared/contracts/catalog.ts';
import {
  EMPTY_SALE,
  parseDiscount,
  parseEntry,
  parseQuantity,
  parseUnitPrice,
  paymentProblem,
  salePayload,
  totalsOf,
  type Sale,
} from '../../src-renderer/src/cashier/sale.ts';
import {
  brl,
  brlText,
  dateBr,
  maskCnpjInput,
  maskCpfInput,
  parseBrDecimal,
  parseBrMoney,
  parseDateBr,
  quantityBr,
  taxIdBr,
} from '../../src-renderer/src/format.ts';

const product = (id: string, vUnCom: string): ProductView => ({
  id,
  companyId: 'cmp_1',
  cProd: id,
  cEAN: null,
  xProd: `P${id}`,
  NCM: '09012100',
  CEST: null,
  uCom: 'UN',
  vUnCom,
  fiscalProfileId: 'fp_1',
  ativo: true,
  createdAt: '',
  updatedAt: '',
});

describe('pt-BR formats', () => {
  it('writes money, quantities, dates and tax ids the Brazilian way', () => {
    expect(brl(123456n)).toBe('R$ 1.234,56');
    expect(brl(5n)).toBe('R$ 0,05');
    expect(brl(-1999n)).toBe('R$ -19,99');
    expect(brlText('18.9')).toBe('R$ 18,90');
    expect(brlText('1234567.125')).toBe('R$ 1.234.567,13');
    expect(quantityBr('2.5000')).toBe('2,5');
    expect(quantityBr('3.0000')).toBe('3');
    expect(dateBr('2026-11-22')).toBe('22/11/2026');
    expect(parseDateBr('31/12/2026')).toBe('2026-12-31');
    expect(parseDateBr('31/02/2026')).toBeNull();
    expect(taxIdBr('52998224725')).toBe('529.982.247-25');
    expect(taxIdBr('12345678000195')).toBe('12.345.678/0001-95');
    expect(maskCpfInput('5299822472')).toBe('529.982.247-2');
    expect(maskCnpjInput('12abc34501de35')).toBe('12.ABC.345/01DE-35');
  });

  it('reads money as a cashier types it', () => {
    expect(parseBrDecimal('1.234,56')).toBe('1234.56');
    expect(parseBrDecimal('1.234')).toBe('1234');
    expect(parseBrDecimal('12.5')).toBe('12.5');
    expect(parseBrDecimal('R$ 0,99')).toBe('0.99');
    expect(parseBrDecimal('abc')).toBeNull();
    expect(parseBrMoney('50')).toBe(5000n);
    expect(parseBrMoney('0,001')).toBeNull();
  });
});

describe('sale model', () => {
  it('parses quantity*code entries and rejects malformed ones', () => {
    expect(parseEntry('7891000100103')).toEqual({ quantity: null, code: '7891000100103' });
    expect(parseEntry('3*2')).toEqual({ quantity: '3', code: '2' });
    expect(parseEntry('1,5*10')).toEqual({ quantity: '1.5', code: '10' });
    expect(parseEntry('0*10')).toBeNull();
    expect(parseEntry('*10')).toBeNull();
    expect(parseQuantity('0,00001')).toBeNull();
    expect(parseUnitPrice('9,90')).toBe('9.9');
  });

  it('totals exactly, with a percent discount rounded half-up and change only from cash', () => {
    const sale: Sale = {
      ...EMPTY_SALE,
      items: [
        { key: 1, product: product('1', '18.90'), quantity: '1', unitPrice: '18.90', priceOverridden: false },
        { key: 2, product: product('2', '5.49'), quantity: '3', unitPrice: '5.49', priceOverridden: false },
        {
          key: 3,
          product: product('3', '0.333'),
          quantity: '1.5',
          unitPrice: '0.3333333333',
          priceOverridden: true,
        },
      ],
    };
    const t = totalsOf(sale);
    // 18.90 + 16.47 + round(0.49999999995) = 35.37 + 0.50
    expect(t.subtotal).toBe(3587n);
    expect(parseDiscount('10%', t.subtotal)).toBe(359n);
    expect(parseDiscount('5,00', t.subtotal)).toBe(500n);
    expect(parseDiscount('35,87', t.subtotal)).toBeNull();
    const paid: Sale = {
      ...sale,
      discountCents: 359n,
      payments: [
        { key: 4, tPag: '03', cents: 2000n },
        { key: 5, tPag: '01', cents: 5000n },
      ],
    };
    expect(totalsOf(paid)).toMatchObject({ total: 3228n, paid: 7000n, remaining: 0n, change: 3772n });
    expect(paymentProblem('03', 5000n, 1228n)).toBe('Só pagamento em dinheiro pode passar do valor (troco).');
    expect(paymentProblem('01', 5000n, 1228n)).toBeNull();
    expect(salePayload({ ...paid, cpf: '52998224725' })).toEqual({
      itens: [
        { productId: '1', quantidade: '1' },
        { productId: '2', quantidade: '3' },
        { productId: '3', quantidade: '1.5', valorUnitario: '0.3333333333' },
      ],
      pagamentos: [
        { forma: '03', valor: '20.00' },
        { forma: '01', valor: '50.00' },
      ],
      valorDesconto: '3.59',
      cpfConsumidor: '52998224725',
    });
  });
});
