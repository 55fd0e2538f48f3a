// Sales reports for the back office (issue 13 item 11): the company's NF-e and NFC-e sales of a period
// grouped by day, register session, operator, product or payment method, as JSON or a pt-BR spreadsheet
// CSV. Sums are exact (bigint cents; quantities at the layout's 4 decimals). Notes are read from their signed
// NFe (the nfeProc adds only the protocol): the groups a grouping needs, never the whole note.
import type { Db } from '../db/client.ts';
import { cents, formatScaled, parseScaled, SCALE } from '../../src-shared/money.ts';
import { outputDocumentOf } from '../outputs/document.ts';
import { HOMOLOGACAO_ITEM_NAME } from '../fiscal/nfe/det.ts';
import { toSpellingA } from '../fiscal/nfe/normalize.ts';
import type { SalesGrouping, SalesReport } from '../../src-shared/contracts/register.ts';
import { isSale, methodOfTPag, moneyNumber } from './report.ts';
import { methodLabel, dataHora } from './ticket.ts';
import { registerRepository } from './repository.ts';
import { timeZoneOf } from './local-day.ts';
import { paymentsOfXml } from './pag.ts';
import { itemsOfXml } from './det.ts';

interface Line {
  chave: string;
  rotulo: string;
  notes: Set<string>;
  itens: bigint | null;
  total: bigint;
}

/** The period is read on the notes' own issue time (dhEmi carries the store's local offset). */
async function notesOf(db: Db, companyId: string, de: string, ate: string) {
  return db
    .selectFrom('documents')
    .select([
      'id',
      'status',
      'replaced_by',
      'v_nf',
      'dh_emi',
      'xml',
      'register_session_id',
      'operator_id',
      'payload_json',
    ])
    .where('company_id', '=', companyId)
    .where('modelo', 'in', [55, 65])
    .where('dh_emi', '>=', de)
    .where('dh_emi', '<', `${ate}T99`)
    .orderBy('dh_emi')
    .orderBy('id')
    .execute();
}

/** The description the sale's request gave item `index` (either spelling), when it gave one. */
function saleItemName(payloadJson: string, index: number): string | null {
  try {
    const payload = toSpellingA(JSON.parse(payloadJson)) as { itens?: Array<{ descricao?: unknown }> };
    const descricao = payload.itens?.[index]?.descricao;
    return typeof descricao === 'string' && descricao.trim() !== '' ? descricao.trim() : null;
  } catch {
    return null;
  }
}

const day = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

export async function salesReport(
  db: Db,
  companyId: string,
  query: { de: string; ate: string; agrupar: SalesGrouping },
): Promise<SalesReport> {
  const notes = await notesOf(db, companyId, query.de, query.ate);
  const lines = new Map<string, Line>();
  const line = (chave: string, rotulo: string, withItems = false): Line => {
    let found = lines.get(chave);
    if (found === undefined) {
      found = { chave, rotulo, notes: new Set(), itens: withItems ? 0n : null, total: 0n };
      lines.set(chave, found);
    }
    return found;
  };
  let vendas = 0;
  let total = 0n;
  let canceladas = 0;
  let totalCanceladas = 0n;

  const sales = notes.filter((n) => {
    if (n.status === 'cancelada') {
      canceladas += 1;
      totalCanceladas += cents(n.v_nf);
    }
    return isSale(n);
  });

  const sessions = new Map<string, string>();
  if (query.agrupar === 'sessao') {
    const timeZone = await timeZoneOf(db, companyId);
    const ids = [
      ...new Set(sales.flatMap((n) => (n.register_session_id == null ? [] : [n.register_session_id]))),
    ];
    for (const id of ids) {
      const s = await registerRepository.findSession(db, id);
      if (s !== undefined) sessions.set(id, `Caixa ${s.caixa} · ${dataHora(s.opened_at, timeZone)}`);
    }
  }
  const operators =
    query.agrupar === 'operador'
      ? await registerRepository.operatorRefs(
          db,
          sales.map((n) => n.operator_id ?? null),
        )
      : new Map();

  const catalogNames = new Map<string, string | null>();
  /**
   * An NFC-e in homologação names its first item with the fixed test text (MOC 7.0 rule 373): the line then
   * takes the name the sale gave it, or the catalog's.
   */
  const productName = async (
    n: (typeof sales)[number],
    index: number,
    item: { cProd: string; xProd: string },
  ): Promise<string> => {
    if (item.xProd !== HOMOLOGACAO_ITEM_NAME) return item.xProd;
    const given = saleItemName(n.payload_json, index);
    if (given !== null) return given;
    if (!catalogNames.has(item.cProd)) {
      const product = await db
        .selectFrom('products')
        .select('x_prod')
        .where('company_id', '=', companyId)
        .where('c_prod', '=', item.cProd)
        .executeTakeFirst();
      catalogNames.set(item.cProd, product?.x_prod ?? null);
    }
    return catalogNames.get(item.cProd) ?? item.xProd;
  };

  for (const n of sales) {
    vendas += 1;
    const value = cents(n.v_nf);
    total += value;
    switch (query.agrupar) {
      case 'dia': {
        const l = line(n.dh_emi.slice(0, 10), day(n.dh_emi));
        l.notes.add(n.id);
        l.total += value;
        break;
      }
      case 'sessao': {
        const id = n.register_session_id ?? null;
        const l =
          id === null
            ? line('sem_sessao', 'Sem sessão de caixa')
            : line(id, sessions.get(id) ?? `Sessão ${id}`);
        l.notes.add(n.id);
        l.total += value;
        break;
      }
      case 'operador': {
        const id = n.operator_id ?? null;
        const op = id === null ? undefined : operators.get(id);
        const l =
          id === null
            ? line('sem_operador', 'Sem operador')
            : line(id, op === undefined ? id : `${op.codigo} ${op.nome}`);
        l.notes.add(n.id);
        l.total += value;
        break;
      }
      case 'produto': {
        // Only the prod groups are read; a note they do not give is read whole, as before.
        const items = itemsOfXml(n.xml) ?? outputDocumentOf({ ...n, proc_xml: null }).items;
        for (const [index, item] of items.entries()) {
          const l = line(item.cProd, await productName(n, index, item), true);
          l.notes.add(n.id);
          l.itens = (l.itens ?? 0n) + parseScaled(item.qCom, SCALE.quantity);
          // What the customer paid for the item: the product less its discount plus what was added to it.
          l.total +=
            cents(item.vProd) -
            cents(item.vDesc ?? '0') +
            cents(item.vOutro ?? '0') +
            cents(item.vFrete ?? '0') +
            cents(item.vSeg ?? '0');
        }
        break;
      }
      case 'metodo': {
        const pag = paymentsOfXml(n.xml);
        for (const det of pag?.detPag ?? []) {
          const metodo = methodOfTPag(det.tPag);
          const l = line(metodo, methodLabel(metodo));
          l.notes.add(n.id);
          l.total += cents(det.vPag);
        }
        // The change went back in cash: the cash line shows what the store kept.
        if (pag?.vTroco != null && cents(pag.vTroco) !== 0n) {
          const l = line('dinheiro', methodLabel('dinheiro'));
          l.total -= cents(pag.vTroco);
        }
        break;
      }
    }
  }

  const ordered = [...lines.values()];
  if (query.agrupar === 'produto' || query.agrupar === 'operador' || query.agrupar === 'metodo')
    ordered.sort((a, b) =>
      a.total === b.total ? a.chave.localeCompare(b.chave) : a.total > b.total ? -1 : 1,
    );
  return {
    agrupar: query.agrupar,
    de: query.de,
    ate: query.ate,
    linhas: ordered.map((l) => ({
      chave: l.chave,
      rotulo: l.rotulo,
      vendas: l.notes.size,
      ...(l.itens === null ? {} : { itens: Number(formatScaled(l.itens, SCALE.quantity)) }),
      total: moneyNumber(l.total),
    })),
    vendas,
    total: moneyNumber(total),
    canceladas: { quantidade: canceladas, total: moneyNumber(totalCanceladas) },
  };
}

function csvField(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Decimal comma from the exact text of a JSON-safe amount (the report's numbers came from exact cents). */
const comma = (value: number, places: number) =>
  formatScaled(parseScaled(String(value), places), places).replace('.', ',');

/** Semicolons, decimal commas, CRLF and a BOM: what a pt-BR spreadsheet opens as columns and numbers. */
export function salesReportCsv(report: SalesReport): string {
  const withItems = report.agrupar === 'produto';
  const rows: string[][] = [
    ['Chave', 'Descrição', 'Vendas', ...(withItems ? ['Quantidade'] : []), 'Total'],
    ...report.linhas.map((l) => [
      l.chave,
      l.rotulo,
      String(l.vendas),
      ...(withItems ? [comma(l.itens ?? 0, SCALE.quantity).replace(/,?0+$/, '')] : []),
      comma(l.total, SCALE.money),
    ]),
    [
      'TOTAL',
      `${report.de} a ${report.ate}`,
      String(report.vendas),
      ...(withItems ? [''] : []),
      comma(report.total, SCALE.money),
    ],
  ];
  return `\uFEFF${rows.map((r) => `${r.map(csvField).join(';')}\r\n`).join('')}`;
}
