// Devolução de venda: the seller issues an NF-e de entrada (tpNF 0, finNFe 4) that references the
// authorized sale (NFref/refNFe, MOC 7.0 BA02; rejection 321 without it) and carries, item by item, the
// devolução CFOP of the sale's CFOP (resources/tables/cfop-devolucao.json, from the CFOP table of the
// Convênio s/nº de 1970, see resources/tables/PROVENANCE.md). The customer of the sale stays the
// counterpart (dest). The result is a draft: it is checked, changed and sent like any other NF-e draft.
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import type { z } from 'zod';
import { DomainError, validationError } from '../../../errors.ts';
import type { Db } from '../../../db/client.ts';
import { resourcePath } from '../../../paths.ts';
import { toSpellingA } from '../../../fiscal/nfe/normalize.ts';
import { devolucaoRequestSchema } from '../../../../src-shared/contracts/requests.ts';
import {
  cents,
  formatCents,
  parseScaled,
  roundDiv,
  SCALE,
  formatScaled,
} from '../../../../src-shared/money.ts';
import type { ErrorDetail } from '../../../../src-shared/contracts/errors.ts';
import { createDraft, type LifecycleDeps } from '../../lifecycle.ts';
import { kindOfModelo } from '../../registry.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { assertAllowed } from '../../state-machine.ts';

const CFOP_FILE = resourcePath('tables', 'cfop-devolucao.json');

let table: ReadonlyMap<string, string> | undefined;

/** The sale CFOP → devolução CFOP pairs, read and checked on first use. */
function cfopPairs(): ReadonlyMap<string, string> {
  if (table !== undefined) return table;
  const raw = JSON.parse(readFileSync(CFOP_FILE, 'utf8')) as { pairs?: unknown };
  if (typeof raw.pairs !== 'object' || raw.pairs === null) throw new Error(`${CFOP_FILE}: no "pairs" object`);
  const map = new Map<string, string>();
  for (const [venda, entry] of Object.entries(raw.pairs as Record<string, unknown>)) {
    const devolucao = (entry as { devolucao?: unknown } | null)?.devolucao;
    // Saídas 5/6/7 (state, interstate, abroad) return as entradas 1/2/3 of the same scope.
    if (
      !/^[567]\d{3}$/.test(venda) ||
      typeof devolucao !== 'string' ||
      !/^[123]\d{3}$/.test(devolucao) ||
      Number(venda[0]) - Number(devolucao[0]) !== 4
    ) {
      throw new Error(`${CFOP_FILE}: bad pair ${JSON.stringify(venda)}: ${JSON.stringify(entry)}`);
    }
    map.set(venda, devolucao);
  }
  table = map;
  return map;
}

/** The devolução CFOP of a sale CFOP, or undefined when the table has no pair for it. */
export function devolucaoCfop(cfopVenda: string): string | undefined {
  return cfopPairs().get(cfopVenda);
}

// The body lives with the other request schemas so the OpenAPI document describes the very one parsed here.
export { devolucaoRequestSchema };

export type DevolucaoRequest = z.output<typeof devolucaoRequestSchema>;

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  // Numeric character references (a supplier's S&#227;o) are decoded only with htmlEntities on.
  htmlEntities: true,
  isArray: (name) => name === 'det',
});

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

interface SoldItem {
  cProd: string | undefined;
  cEAN: string | undefined;
  xProd: string | undefined;
  NCM: string | undefined;
  CEST: string | undefined;
  CFOP: string;
  uCom: string | undefined;
  qCom: string;
  vUnCom: string | undefined;
  /** Item shares of discount, freight, insurance and other charges as the note carries them. */
  vDesc: string | undefined;
  vFrete: string | undefined;
  vSeg: string | undefined;
  vOutro: string | undefined;
  /** The item's tax values as authorized (detailed-mode names); vIPI becomes impostoDevol.vIPIDevol. */
  taxes: Partial<Record<TaxValue, string>>;
  vIPI: string | undefined;
}

/** Values of det/imposto a return carries back, prorated (detailed-mode names of nfe-payload.ts `impostos`). */
type TaxValue = 'vBC' | 'vICMS' | 'vBCST' | 'vICMSST' | 'vPIS' | 'vCOFINS' | 'vTotTrib';

/** The one child of a choice group (ICMS/ICMS00, PIS/PISAliq, ...). */
const only = (v: unknown): Node => obj(Object.values(obj(v))[0]);

function taxValues(imposto: Node): SoldItem['taxes'] {
  const icms = only(imposto['ICMS']);
  const found: Record<string, string | undefined> = {
    vBC: str(icms['vBC']),
    vICMS: str(icms['vICMS']),
    vBCST: str(icms['vBCST']),
    vICMSST: str(icms['vICMSST']),
    vPIS: str(only(imposto['PIS'])['vPIS']),
    vCOFINS: str(only(imposto['COFINS'])['vCOFINS']),
    vTotTrib: str(imposto['vTotTrib']),
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v !== undefined));
}

/** The items as authorized: the signed XML is the document of record, whatever the payload left implicit. */
function soldItems(xml: string): SoldItem[] {
  const inf = obj(obj(obj(parser.parse(xml))['NFe'])['infNFe']);
  const dets = Array.isArray(inf['det']) ? (inf['det'] as unknown[]) : [];
  return dets.map((d) => {
    const prod = obj(obj(d)['prod']);
    const imposto = obj(obj(d)['imposto']);
    return {
      taxes: taxValues(imposto),
      vIPI: str(obj(obj(imposto['IPI'])['IPITrib'])['vIPI']),
      cProd: str(prod['cProd']),
      cEAN: str(prod['cEAN']),
      xProd: str(prod['xProd']),
      NCM: str(prod['NCM']),
      CEST: str(prod['CEST']),
      CFOP: str(prod['CFOP']) ?? '',
      uCom: str(prod['uCom']),
      qCom: str(prod['qCom']) ?? '0',
      vUnCom: str(prod['vUnCom']),
      vDesc: str(prod['vDesc']),
      vFrete: str(prod['vFrete']),
      vSeg: str(prod['vSeg']),
      vOutro: str(prod['vOutro']),
    };
  });
}

const NOTE_CHARGES = ['valorFrete', 'valorSeguro', 'valorDesconto', 'valorOutros'] as const;
const ITEM_CHARGES = [
  ['valorDesconto', 'vDesc'],
  ['valorFrete', 'vFrete'],
  ['valorSeguro', 'vSeg'],
  ['valorOutros', 'vOutro'],
] as const;

/** What `quantity` of a sold item carries back, every value prorated from the sale (never recomputed). */
function returnedValues(s: SoldItem, quantity: bigint) {
  const soldQuantity = parseScaled(s.qCom, SCALE.quantity);
  const prorate = (money: string) =>
    quantity === soldQuantity ? money : formatCents(roundDiv(cents(money) * quantity, soldQuantity));
  const charges: Partial<Record<(typeof ITEM_CHARGES)[number][0], string>> = {};
  for (const [field, tag] of ITEM_CHARGES) {
    const value = s[tag];
    if (value !== undefined) charges[field] = prorate(value);
  }
  return {
    quantidade: quantity === soldQuantity ? s.qCom : formatScaled(quantity, SCALE.quantity),
    charges,
    // The taxes as authorized, prorated (detailed mode), never recomputed from today's rates: a return of
    // part of an item gets back round(value × returned / sold), the whole item exactly its values.
    impostos: Object.fromEntries(Object.entries(s.taxes).map(([k, v]) => [k, prorate(v)])),
    // Group UA: the share returned in percent (2 decimals) and the IPI returned, out of the IPI group.
    impostoDevol: {
      pDevol: formatCents(roundDiv(quantity * 10000n, soldQuantity)),
      vIPIDevol: prorate(s.vIPI ?? '0.00'),
    },
  };
}

/**
 * Builds the devolução payload from the original's (in spelling A): every item keeps its product, taxes and
 * values as sold, with the devolução CFOP and the returned quantity; charges of a partial quantity are
 * prorated, rounded half-up to the cent (src-shared/money.ts).
 */
export function devolucaoPayload(original: DocumentRow, request: DevolucaoRequest): Record<string, unknown> {
  const payload = obj(toSpellingA(JSON.parse(original.payload_json) as unknown));
  const payloadItems = Array.isArray(payload['itens']) ? (payload['itens'] as unknown[]) : [];
  const sold = soldItems(original.xml);
  if (sold.length === 0 || sold.length !== payloadItems.length) {
    throw new Error(`document ${original.id}: its payload and XML disagree on the items`);
  }

  // Which items come back, and how much of each.
  const wanted = new Map<number, bigint>();
  const problems: ErrorDetail[] = [];
  (request.itens ?? sold.map((s, i) => ({ nItem: i + 1, quantidade: s.qCom }))).forEach((it, i) => {
    const soldItem = sold[it.nItem - 1];
    if (soldItem === undefined) {
      problems.push({
        field: `itens[${i}].nItem`,
        error: `the original note has no item ${it.nItem} (it has ${sold.length})`,
      });
      return;
    }
    if (wanted.has(it.nItem)) {
      problems.push({ field: `itens[${i}].nItem`, error: `item ${it.nItem} is listed twice` });
      return;
    }
    const quantity = parseScaled(it.quantidade, SCALE.quantity);
    if (quantity > parseScaled(soldItem.qCom, SCALE.quantity)) {
      problems.push({
        field: `itens[${i}].quantidade`,
        error: `more than the ${soldItem.qCom} sold in item ${it.nItem}`,
      });
      return;
    }
    wanted.set(it.nItem, quantity);
  });
  if (problems.length > 0) throw validationError(problems);

  const noPair: ErrorDetail[] = [];
  const itens: unknown[] = [];
  for (const [nItem, quantity] of [...wanted].sort((a, b) => a[0] - b[0])) {
    const s = sold[nItem - 1] as SoldItem;
    const cfop = devolucaoCfop(s.CFOP);
    if (cfop === undefined) {
      noPair.push({
        field: `itens[${nItem - 1}].cfop`,
        error: `item ${nItem}: CFOP ${s.CFOP} is not a sale with a devolução CFOP (resources/tables/cfop-devolucao.json)`,
      });
      continue;
    }
    const item: Node = { ...obj(payloadItems[nItem - 1]) };
    // Values as sold (a product's price or description may have changed since).
    if (s.cProd !== undefined) item['codigo'] = s.cProd;
    if (s.xProd !== undefined) item['descricao'] = s.xProd;
    if (s.NCM !== undefined) item['ncm'] = s.NCM;
    if (s.CEST !== undefined) item['cest'] = s.CEST;
    if (s.cEAN !== undefined) item['gtin'] = s.cEAN;
    if (s.uCom !== undefined) item['unidade'] = s.uCom;
    if (s.vUnCom !== undefined) item['valorUnitario'] = s.vUnCom;
    item['cfop'] = cfop;
    const values = returnedValues(s, quantity);
    item['quantidade'] = values.quantidade;
    for (const [field] of ITEM_CHARGES) {
      const value = values.charges[field];
      if (value === undefined) delete item[field];
      else item[field] = value;
    }
    item['impostos'] = values.impostos;
    item['impostoDevol'] = values.impostoDevol;
    itens.push(item);
  }
  if (noPair.length > 0) {
    throw new DomainError(
      'fiscal_rejection',
      'Some items were not sold under a CFOP that has a devolução pair; return them with a note of your own.',
      noPair,
    );
  }

  const next: Node = { ...payload };
  // The series and model are the NF-e defaults; payments become tPag 90 (sem pagamento, MOC 7.0 YA02);
  // presence and intermediary describe the sale, not the return.
  for (const key of [
    'modelo',
    'serie',
    'pagamentos',
    'presenca',
    'intermediador',
    'cobranca',
    ...NOTE_CHARGES,
  ]) {
    delete next[key];
  }
  // The sale's invoice is not the return's (its instalments would fall before this note: 900); the freight
  // modality stays, the sale's carrier, vehicle and volumes do not describe the goods coming back.
  const transporte = obj(next['transporte']);
  if (next['transporte'] !== undefined) {
    next['transporte'] = transporte['modFrete'] === undefined ? {} : { modFrete: transporte['modFrete'] };
  }
  next['naturezaOperacao'] = 'Devolucao de venda';
  next['tipoOperacao'] = 0;
  next['finalidade'] = 4;
  next['nfeReferenciada'] = [original.chave];
  next['informacoesAdicionais'] =
    `Devolucao referente a ${original.modelo === 65 ? 'NFC-e' : 'NF-e'} numero ${original.n_nf} ` +
    `serie ${original.serie}, chave de acesso ${original.chave}`;
  next['itens'] = itens;
  return next;
}

/**
 * A devolução changed after its draft was made (PUT /v1/nfe/:id, or POST /v1/nfe written by hand): each item
 * sent without `impostos` whose note references one authorized note of the company gets its values prorated
 * from that note's item again, for the quantity it now has — `impostos`, and unless sent `impostoDevol`,
 * `valorUnitario`, `valorDesconto`, `valorFrete`, `valorSeguro`, `valorOutros`. The item is the sold one with
 * the same `codigo` whose CFOP pairs with the item's `cfop` (when given), the first not yet taken. A quantity
 * above the one sold is a validation error on `itens[i].quantidade`. Any other body is returned as it came.
 */
export async function reprorateDevolucao(db: Db, companyId: string, body: unknown): Promise<unknown> {
  const payload = obj(toSpellingA(body));
  if (payload['finalidade'] !== 4) return body;
  const refs = payload['nfeReferenciada'];
  const chave =
    typeof refs === 'string' ? refs : Array.isArray(refs) && refs.length === 1 ? refs[0] : undefined;
  if (typeof chave !== 'string' || !Array.isArray(payload['itens'])) return body;
  const original = await documentsRepository.findByChave(db, chave);
  if (original?.company_id !== companyId || original.status !== 'autorizada') return body;
  const sold = soldItems(original.xml);
  const taken = new Set<number>();
  const problems: ErrorDetail[] = [];
  let changed = false;
  const itens = (payload['itens'] as unknown[]).map((raw, i) => {
    const item = obj(raw);
    const codigo = str(item['codigo']);
    const cfop = str(item['cfop']);
    const quantidade = str(item['quantidade']);
    if (item['impostos'] !== undefined || codigo === undefined || quantidade === undefined) return raw;
    const index = sold.findIndex(
      (s, n) => !taken.has(n) && s.cProd === codigo && (cfop === undefined || devolucaoCfop(s.CFOP) === cfop),
    );
    const s = sold[index];
    if (s === undefined) return raw;
    taken.add(index);
    let quantity: bigint;
    try {
      quantity = parseScaled(quantidade, SCALE.quantity);
    } catch {
      return raw; // the payload's own validation names it
    }
    if (quantity > parseScaled(s.qCom, SCALE.quantity)) {
      problems.push({
        field: `itens[${i}].quantidade`,
        error: `more than the ${s.qCom} sold in item ${index + 1} of the referenced note`,
      });
      return raw;
    }
    const values = returnedValues(s, quantity);
    const next: Node = { ...item, impostos: values.impostos };
    if (next['impostoDevol'] === undefined) next['impostoDevol'] = values.impostoDevol;
    if (next['valorUnitario'] === undefined && s.vUnCom !== undefined) next['valorUnitario'] = s.vUnCom;
    for (const [field] of ITEM_CHARGES) {
      const value = values.charges[field];
      if (next[field] === undefined && value !== undefined) next[field] = value;
    }
    changed = true;
    return next;
  });
  if (problems.length > 0) throw validationError(problems);
  return changed ? { ...payload, itens } : body;
}

/**
 * Creates the devolução draft of an authorized note. A payload that no longer makes a valid NF-e (e.g. an
 * NFC-e sold to an unidentified consumer: an NF-e needs the recipient's name and address) is a 422 listing
 * what is missing, in the fields of the original's payload.
 */
export async function createDevolucao(
  deps: LifecycleDeps,
  originalId: string,
  request: DevolucaoRequest,
): Promise<DocumentRow> {
  const original = await documentsRepository.findById(deps.db, originalId);
  if (original === undefined) throw new DomainError('not_found', 'Document not found.');
  assertAllowed(original.status, 'devolve');
  const payload = devolucaoPayload(original, request);
  try {
    return await createDraft(deps, kindOfModelo(55), original.company_id, payload);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'validation_error') {
      throw new DomainError(
        'fiscal_rejection',
        'The original note cannot be turned into a devolução NF-e as it is: issue it with POST /v1/nfe.',
        error.details,
      );
    }
    throw error;
  }
}
