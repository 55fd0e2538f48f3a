// What in a sale may need a supervisor (issue 13 item 1): items sold at a price other than the catalog's
// (`preco`) and the discount against the items' total (`desconto`), read from the payload in exact cents.
import type { Db } from '../db/client.ts';
import { toSpellingA } from '../fiscal/nfe/normalize.ts';
import { catalogRepository } from '../catalog/repository.ts';
import { lineTotal, parseScaled, SCALE, sum } from '../../src-shared/money.ts';
import { numberToDecimalText } from '../../src-shared/decimal-text.ts';

/** Decimal text of a JSON value, or null when it is not a number the payload check would take. */
function decimal(value: unknown, scale: number): bigint | null {
  const text =
    typeof value === 'number' ? numberToDecimalText(value) : typeof value === 'string' ? value.trim() : null;
  if (text === null) return null;
  try {
    return parseScaled(text, scale);
  } catch {
    return null;
  }
}

export interface PriceOverride {
  item: number;
  codigo: string;
  catalogo: string;
  vendido: string;
}

export interface SaleAnalysis {
  overrides: PriceOverride[];
  /** The sale's discount (the note's plus its items'), in cents. */
  descontoCents: bigint;
  /** The items' total before discounts, in cents. */
  totalCents: bigint;
}

/**
 * Reads the payload as the payload check will (either spelling). An item names its catalog product by
 * `productId` or by `codigo` (the product's cProd); items outside the catalog have no catalog price to
 * differ from. Values that do not parse are left to the payload check, which reports them.
 */
export async function analyzeSale(db: Db, companyId: string, payload: unknown): Promise<SaleAnalysis> {
  const body = toSpellingA(payload);
  const empty: SaleAnalysis = { overrides: [], descontoCents: 0n, totalCents: 0n };
  if (typeof body !== 'object' || body === null) return empty;
  const root = body as Record<string, unknown>;
  const items = Array.isArray(root['itens']) ? (root['itens'] as unknown[]) : [];
  const overrides: PriceOverride[] = [];
  const lines: bigint[] = [];
  const discounts: bigint[] = [decimal(root['valorDesconto'], SCALE.money) ?? 0n];
  for (const [index, raw] of items.entries()) {
    if (typeof raw !== 'object' || raw === null) continue;
    const item = raw as Record<string, unknown>;
    const productId = item['productId'];
    const codigo = item['codigo'];
    const product =
      typeof productId === 'string'
        ? await catalogRepository.findProduct(db, productId)
        : typeof codigo === 'string'
          ? await catalogRepository.findProductByCode(db, companyId, codigo)
          : undefined;
    const catalogPrice =
      product !== undefined && product.company_id === companyId
        ? parseScaled(product.v_un_com, SCALE.unitPrice)
        : null;
    const given =
      item['valorUnitario'] === undefined ? null : decimal(item['valorUnitario'], SCALE.unitPrice);
    if (catalogPrice !== null && given !== null && given !== catalogPrice && product !== undefined) {
      overrides.push({
        item: index + 1,
        codigo: product.c_prod,
        catalogo: product.v_un_com,
        vendido:
          typeof item['valorUnitario'] === 'number'
            ? numberToDecimalText(item['valorUnitario'])
            : String(item['valorUnitario']),
      });
    }
    const unit = given ?? catalogPrice;
    const quantity = decimal(item['quantidade'], SCALE.quantity);
    if (unit !== null && quantity !== null) lines.push(lineTotal(quantity, unit));
    discounts.push(decimal(item['valorDesconto'], SCALE.money) ?? 0n);
  }
  return { overrides, descontoCents: sum(discounts), totalCents: sum(lines) };
}
