// The sale being rung up, as plain data with exact arithmetic: items (quantity scale 4, unit price scale 10),
// the discount and payments in cents. Totals follow the note's own rules (vProd = qCom × vUnCom rounded,
// src-shared/money.ts), so what the screen shows is what the NFC-e will say.
import { SCALE, formatScaled, lineTotal, parseScaled, percentOf, sum } from '../../../src-shared/money.ts';
import { TPAG, type TPag } from '../../../src-shared/tables/payment-methods.ts';
import type { ProductView } from '../../../src-shared/contracts/catalog.ts';
import type { SalePayload } from '../../../src-shared/contracts/api-client.ts';
import { parseBrDecimal } from '../format.ts';

export interface SaleItem {
  /** Local line id (stable across removals). */
  key: number;
  product: ProductView;
  /** Decimal text, at most 4 decimals. */
  quantity: string;
  /** Decimal text, at most 10 decimals. */
  unitPrice: string;
  priceOverridden: boolean;
  /** A line of its own: a scale label (its weight or price is that package's), never grouped. */
  single?: boolean;
}

export interface SalePayment {
  key: number;
  tPag: TPag;
  cents: bigint;
  descricao?: string;
  /** A dynamic PIX paid through the store's PSP (PixCharge.tsx): the charge's txid. */
  pixTxid?: string;
}

export interface Sale {
  items: SaleItem[];
  discountCents: bigint;
  payments: SalePayment[];
  cpf: string | null;
  customer: { id: string; nome: string; doc: string | null } | null;
}

export const EMPTY_SALE: Sale = { items: [], discountCents: 0n, payments: [], cpf: null, customer: null };

export function itemCents(item: Pick<SaleItem, 'quantity' | 'unitPrice'>): bigint {
  return lineTotal(parseScaled(item.quantity, SCALE.quantity), parseScaled(item.unitPrice, SCALE.unitPrice));
}

export interface Totals {
  subtotal: bigint;
  discount: bigint;
  total: bigint;
  paid: bigint;
  /** What is still to pay (0 once covered). */
  remaining: bigint;
  /** Change to give back (troco), 0 when not overpaid. */
  change: bigint;
  itemCount: number;
}

export function totalsOf(sale: Sale): Totals {
  const subtotal = sum(sale.items.map(itemCents));
  const discount = sale.discountCents > subtotal ? subtotal : sale.discountCents;
  const total = subtotal - discount;
  const paid = sum(sale.payments.map((p) => p.cents));
  return {
    subtotal,
    discount,
    total,
    paid,
    remaining: paid >= total ? 0n : total - paid,
    change: paid > total ? paid - total : 0n,
    itemCount: sale.items.length,
  };
}

/**
 * The sale with `item` added: scanning the same product again adds to its line's quantity (one line per
 * product at its catalogue price), so the note and the receipt list it once; scale labels stay lines of
 * their own.
 */
export function addItem(sale: Sale, item: SaleItem): Sale {
  const same =
    item.single === true || item.priceOverridden
      ? undefined
      : sale.items.find(
          (i) =>
            i.product.id === item.product.id &&
            i.single !== true &&
            !i.priceOverridden &&
            i.unitPrice === item.unitPrice,
        );
  if (same === undefined) return { ...sale, items: [...sale.items, item] };
  const quantity = parseScaled(same.quantity, SCALE.quantity) + parseScaled(item.quantity, SCALE.quantity);
  const text = formatScaled(quantity, SCALE.quantity).replace(/\.?0+$/, '');
  return { ...sale, items: sale.items.map((i) => (i.key === same.key ? { ...i, quantity: text } : i)) };
}

/** `3*7891234567895`, `2,5*123` or a bare code → quantity (decimal text) and code; null if malformed. */
export function parseEntry(input: string): { quantity: string | null; code: string } | null {
  const text = input.trim();
  if (text === '') return null;
  const star = text.indexOf('*');
  if (star < 0) return { quantity: null, code: text };
  const quantity = parseQuantity(text.slice(0, star));
  const code = text.slice(star + 1).trim();
  if (quantity === null || code === '') return null;
  return { quantity, code };
}

/** A positive quantity with at most 4 decimals (qCom TDec_1104v), as decimal text; null otherwise. */
export function parseQuantity(input: string): string | null {
  const text = parseBrDecimal(input);
  if (text === null) return null;
  try {
    const q = parseScaled(text, SCALE.quantity);
    if (q <= 0n || q >= 10n ** 15n) return null;
    return formatScaled(q, SCALE.quantity).replace(/\.?0+$/, '');
  } catch {
    return null;
  }
}

/** A non-negative unit price with at most 10 decimals; null otherwise. */
export function parseUnitPrice(input: string): string | null {
  const text = parseBrDecimal(input);
  if (text === null) return null;
  try {
    const p = parseScaled(text, SCALE.unitPrice);
    if (p <= 0n) return null;
    return formatScaled(p, SCALE.unitPrice).replace(/0+$/, '').replace(/\.$/, '');
  } catch {
    return null;
  }
}

/**
 * A discount typed as money ("5,00") or percent ("10%") of the subtotal → cents (percent rounded half-up,
 * src-shared/money.ts percentOf); null when malformed or not below the subtotal.
 */
export function parseDiscount(input: string, subtotal: bigint): bigint | null {
  const text = input.trim();
  if (text === '' || text === '0') return 0n;
  let cents: bigint;
  try {
    if (text.endsWith('%')) {
      const rate = parseBrDecimal(text.slice(0, -1));
      if (rate === null) return null;
      cents = percentOf(subtotal, parseScaled(rate, SCALE.rate));
    } else {
      const money = parseBrDecimal(text);
      if (money === null) return null;
      cents = parseScaled(money, SCALE.money);
    }
  } catch {
    return null;
  }
  return cents < 0n || cents >= subtotal ? null : cents;
}

/** Payment methods the cashier picks from: the usual four first, then the rest of tPag (no 90, no 22). */
export const CASHIER_METHODS: readonly { tPag: TPag; label: string }[] = [
  { tPag: '01', label: 'Dinheiro' },
  { tPag: '03', label: 'Cartão de crédito' },
  { tPag: '04', label: 'Cartão de débito' },
  { tPag: '17', label: 'PIX' },
  ...(Object.keys(TPAG) as TPag[])
    .filter((t) => !['01', '03', '04', '17', '20', '22', '90'].includes(t))
    .map((tPag) => ({ tPag, label: TPAG[tPag] })),
];

export function methodLabel(tPag: string): string {
  return CASHIER_METHODS.find((m) => m.tPag === tPag)?.label ?? TPAG[tPag as TPag] ?? tPag;
}

/** Only cash may exceed what is left to pay: change (troco) is given in cash. */
export function paymentProblem(tPag: TPag, cents: bigint, remaining: bigint): string | null {
  if (cents <= 0n) return 'Informe um valor maior que zero.';
  if (remaining <= 0n) return 'A venda já está paga.';
  if (tPag !== '01' && cents > remaining) return 'Só pagamento em dinheiro pode passar do valor (troco).';
  return null;
}

/** The POST /v1/nfce body. */
export function salePayload(sale: Sale): SalePayload {
  const body: SalePayload = {
    itens: sale.items.map((i) => ({
      productId: i.product.id,
      quantidade: i.quantity,
      ...(i.priceOverridden ? { valorUnitario: i.unitPrice } : {}),
    })),
    pagamentos: sale.payments.map((p) => ({
      forma: p.tPag,
      valor: formatScaled(p.cents, SCALE.money),
      ...(p.descricao === undefined ? {} : { descricao: p.descricao }),
      ...(p.pixTxid === undefined ? {} : { pixTxid: p.pixTxid }),
    })),
  };
  if (sale.discountCents > 0n) body.valorDesconto = formatScaled(sale.discountCents, SCALE.money);
  if (sale.customer !== null) body.customerId = sale.customer.id;
  else if (sale.cpf !== null) body.cpfConsumidor = sale.cpf;
  return body;
}
