// The cashier's rules without a browser: a scan told from an amount typed by hand, the cash cap and the
// large change, scale labels (EAN-13 starting with 2) and repeated scans grouped on one line.
import { describe, expect, it } from 'vitest';
import type { ProductView } from '../../src-shared/contracts/catalog.ts';
import { addItem, EMPTY_SALE, itemCents, type SaleItem } from '../../src-renderer/src/cashier/sale.ts';
import {
  BurstTracker,
  cashCap,
  ean13CheckDigit,
  largeChange,
  parseScaleLabel,
  quantityForPrice,
  scaleItemCodes,
  weightQuantity,
} from '../../src-renderer/src/cashier/scan.ts';

function typeAt(tracker: BurstTracker<string>, keys: string, start: number, gap: number): number {
  let t = start;
  for (const k of keys) {
    tracker.key(k, t, () => `before ${k}`);
    t += gap;
  }
  return t;
}

describe('scan or typed amount', () => {
  it('reads 8 to 14 digits typed a few ms apart and then Enter as a scan', () => {
    const tracker = new BurstTracker<string>();
    const end = typeAt(tracker, '7891000100103', 1000, 4);
    expect(tracker.scanAt(end)).toEqual({ code: '7891000100103', before: 'before 7' });
    const end8 = typeAt(tracker, '12345670', 5000, 8);
    expect(tracker.scanAt(end8)?.code).toBe('12345670');
  });

  it('does not take an amount typed by a person, a short burst, a long one or one with a comma as a scan', () => {
    const tracker = new BurstTracker<string>();
    expect(tracker.scanAt(typeAt(tracker, '78910001', 0, 700))).toBeNull();
    expect(tracker.scanAt(typeAt(tracker, '1234567', 10_000, 4))).toBeNull();
    expect(tracker.scanAt(typeAt(tracker, '123456789012345', 20_000, 4))).toBeNull();
    expect(tracker.scanAt(typeAt(tracker, '1234,5678', 30_000, 4))).toBeNull();
  });

  it('starts a new burst after a pause: the snapshot is the screen before the scan, not before the pause', () => {
    const tracker = new BurstTracker<string>();
    tracker.key('1', 0, () => 'method stage');
    const end = typeAt(tracker, '7891000100103', 2000, 3);
    expect(tracker.scanAt(end)?.before).toBe('before 7');
  });
});

describe('cash limits', () => {
  it('caps cash at R$ 1.000 or ten times what is left to pay', () => {
    expect(cashCap(479n)).toBe(100_000n);
    expect(cashCap(25_000n)).toBe(250_000n);
  });

  it('calls R$ 200 of change, or change as large as the sale, large', () => {
    expect(largeChange(20_000n, 100_000n)).toBe(true);
    expect(largeChange(4_521n, 479n)).toBe(true);
    expect(largeChange(3_463n, 3_537n)).toBe(false);
    expect(largeChange(0n, 0n)).toBe(false);
  });
});

describe('scale labels', () => {
  const label = (body12: string) => `${body12}${ean13CheckDigit(body12)}`;

  it('reads the item code and the price with the default layout (2 CCCC 0 PPPPPP D)', () => {
    const code = label('201230001234');
    expect(parseScaleLabel(code, { codeDigits: 4, value: 'preco', decimals: 2 })).toEqual({
      kind: 'scale',
      itemCode: '0123',
      value: 'preco',
      amount: '12.34',
    });
    expect(scaleItemCodes('0123')).toEqual(['0123', '123']);
  });

  it('reads a weight in kg with 3 decimals and a 5-digit code', () => {
    const code = label('212345001500'); // 2 CCCCC PPPPPP D
    expect(parseScaleLabel(code, { codeDigits: 5, value: 'peso', decimals: 3 })).toEqual({
      kind: 'scale',
      itemCode: '12345',
      value: 'peso',
      amount: '1.500',
    });
  });

  it('turns a weight into the quantity of the line', () => {
    expect(weightQuantity('1.500')).toBe('1.5');
    expect(weightQuantity('0.512')).toBe('0.512');
    expect(weightQuantity('0.000')).toBeNull();
  });

  it('refuses a label whose check digit does not match, and ignores codes that are not scale labels', () => {
    const good = label('201230001234');
    const bad = `${good.slice(0, 12)}${(Number(good[12]) + 1) % 10}`;
    expect(parseScaleLabel(bad, { codeDigits: 4, value: 'preco', decimals: 2 })).toEqual({
      kind: 'bad-check-digit',
    });
    expect(parseScaleLabel('7891000100103', { codeDigits: 4, value: 'preco', decimals: 2 })).toBeNull();
    expect(parseScaleLabel('2001230012', { codeDigits: 4, value: 'preco', decimals: 2 })).toBeNull();
  });

  it('derives the weight from the printed price so that the line total is that price to the cent', () => {
    for (const [price, unit] of [
      ['12.34', '29.90'],
      ['7.01', '39.99'],
      ['0.99', '3.49'],
      ['45.67', '89.90'],
    ] as const) {
      const quantity = quantityForPrice(price, unit);
      expect(quantity).not.toBeNull();
      expect(itemCents({ quantity: quantity ?? '0', unitPrice: unit })).toBe(BigInt(price.replace('.', '')));
    }
  });
});

describe('repeated scans', () => {
  const product = (id: string): ProductView =>
    ({ id, cProd: id, xProd: `P ${id}`, vUnCom: '2.50', ativo: true }) as unknown as ProductView;
  const line = (key: number, id: string, quantity = '1', extra: Partial<SaleItem> = {}): SaleItem => ({
    key,
    product: product(id),
    quantity,
    unitPrice: '2.50',
    priceOverridden: false,
    ...extra,
  });

  it('adds the quantity to the product’s line instead of a new line', () => {
    let sale = addItem(EMPTY_SALE, line(1, 'a'));
    sale = addItem(sale, line(2, 'b'));
    sale = addItem(sale, line(3, 'a'));
    sale = addItem(sale, line(4, 'a', '2.5'));
    expect(sale.items.map((i) => [i.product.id, i.quantity])).toEqual([
      ['a', '4.5'],
      ['b', '1'],
    ]);
  });

  it('keeps scale labels and changed prices on lines of their own', () => {
    let sale = addItem(EMPTY_SALE, line(1, 'a'));
    sale = addItem(sale, line(2, 'a', '0.512', { single: true }));
    sale = addItem(sale, line(3, 'a', '0.300', { single: true }));
    sale = addItem(sale, { ...line(4, 'a'), unitPrice: '2', priceOverridden: true });
    expect(sale.items).toHaveLength(4);
  });
});
