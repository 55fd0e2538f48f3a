// The accountant's monthly package: every authorized, denied, cancelled or substituted note's distribution XML,
// the issuer's events (procEventoNFe / procEventoCTe / procEventoDCe / the NFS-e's <evento>) and the voids (ProcInutNFe) of a
// month, as one zip with a summary CSV, streamed in batches.
import { sql } from 'kysely';
import { Zip, ZipDeflate } from 'fflate';
import type { Db } from '../db/client.ts';
import type { CompaniesTable } from '../db/schema.ts';
import type { Selectable } from 'kysely';
import { formatDateTimeTz } from '../fiscal/datetime.ts';
import { procEventoNFe, procInutNFe } from '../fiscal/proc.ts';
import { procEventoCTe } from '../fiscal/cte/proc.ts';
import { procEventoDCe } from '../fiscal/dce/proc.ts';
import { DESC_EVENTO, isTpEvento } from '../fiscal/events.ts';
import { refreshVoids, type NumberVoidsTable } from '../documents/inutilizar.ts';
import { procOf } from '../documents/stored-xml.ts';
import { ufBySigla } from '../../src-shared/uf.ts';
import { firstElementText } from '../fiscal/xml.ts';

/**
 * Notes whose XML the store must keep and hand to its accountant: authorized ones, those whose use was
 * denied (they carry the authority's protocol too) and cancelled ones (with their cancellation event).
 */
const EXPORTED_STATUSES = ['autorizada', 'denegada', 'cancelada', 'substituida'] as const;
/** The issuer's own events; the recipient's manifestations of received notes are not the store's notes. */
const ISSUER_EVENTS: ReadonlySet<string> = new Set(['110110', '110111', '110112']);
/** The NFS-e provider's own events (pedRegEvento): its cancellation e101101. */
const NFSE_ISSUER_EVENTS: Readonly<Record<string, string>> = { '101101': 'Cancelamento de NFS-e' };
const BATCH = 200;
/** Folder of each model's notes in the zip; 98 is the NFS-e's internal model (docs/nfse.md), 99 the DC-e. */
const FOLDERS: Readonly<Record<number, string>> = { 55: 'NFe', 65: 'NFCe', 57: 'CTe', 98: 'NFSe', 99: 'DCe' };
/** The issuer events' families as the queue keeps their messages: their proc, key tag and file suffix. */
const EVENT_FAMILIES = {
  nfe: {
    proc: (event: string, answer: string) => procEventoNFe(event, answer, { validate: false }).xml,
    keyTag: 'chNFe',
    suffix: 'procEventoNFe',
  },
  cte: {
    proc: (event: string, answer: string) => procEventoCTe(event, answer, { validate: false }).xml,
    keyTag: 'chCTe',
    suffix: 'procEventoCTe',
  },
  dce: { proc: procEventoDCe, keyTag: 'chDCe', suffix: 'procEventoDCe' },
} as const;
/** Name suffix of each model's distribution XML; the NFS-e's is the <NFSe> as returned (no proc wrapper). */
const PROC_SUFFIX: Readonly<Record<number, string>> = { 57: 'procCTe', 98: 'NFSe', 99: 'procDCe' };

export const CSV_HEADER = [
  'tipo',
  'modelo',
  'serie',
  'numero',
  'numero_final',
  'chave',
  'data',
  'status',
  'valor_total',
  'protocolo',
  'arquivo',
] as const;

type CsvRow = Record<(typeof CSV_HEADER)[number], string>;

/** Where the zip's bytes go; a promise makes the export wait (back-pressure from a slow download). */
export type ZipSink = (chunk: Uint8Array) => void | Promise<void>;

export interface MonthExportSummary {
  notes: number;
  events: number;
  voids: number;
}

/** `2026-11` → the month of the instant `when` in `timeZone`. */
function monthOf(when: string, timeZone: string): string | undefined {
  const date = new Date(when);
  return Number.isNaN(date.getTime()) ? undefined : formatDateTimeTz(date, timeZone).slice(0, 7);
}

function localTime(when: string, timeZone: string): string {
  const date = new Date(when);
  return Number.isNaN(date.getTime()) ? when : formatDateTimeTz(date, timeZone);
}

/**
 * A lexical window around the month wide enough for any time zone and storage form (local with offset, or
 * UTC): rows inside it are then checked exactly in the company's time zone.
 */
function window(mes: string): { from: string; to: string } {
  const [y, m] = mes.split('-').map(Number) as [number, number];
  const from = new Date(Date.UTC(y, m - 1, 1) - 2 * 86400_000).toISOString().slice(0, 10);
  const to = new Date(Date.UTC(y, m, 1) + 2 * 86400_000).toISOString().slice(0, 10);
  return { from, to };
}

function csvField(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Semicolons and decimal commas: what a pt-BR spreadsheet opens as columns and numbers. */
function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(';')}\r\n`;
}

const decimalComma = (value: string) => value.replace('.', ',');
const encoder = new TextEncoder();

/**
 * An NFS-e event registered by the national environment, as `Eventos/<chNFSe>-<tpEvento>-<nSeq>-evento.xml`:
 * the <evento> it answered, byte for byte (it embeds our signed pedRegEvento: the layout has no proc wrapper).
 * Null when it is not the provider's, not of this environment or month, or not a registration.
 */
function nfseEventFile(
  row: { message: string; answer_xml: string | null; answer_n_prot: string | null },
  ambiente: string,
  mes: string,
  timeZone: string,
): { name: string; xml: string; row: CsvRow } | null {
  const answer = row.answer_xml;
  if (answer === null || !/<(?:\w+:)?infEvento\b/.test(answer)) return null;
  // The event's group names its type: <e101101> in infPedReg.
  const tpEvento = /<(?:\w+:)?e(\d{6})\b/.exec(row.message)?.[1] ?? '';
  const descricao = NFSE_ISSUER_EVENTS[tpEvento];
  if (descricao === undefined) return null;
  if (firstElementText(row.message, 'tpAmb') !== (ambiente === 'producao' ? '1' : '2')) return null;
  const registered = firstElementText(answer, 'dhProc') ?? '';
  if (monthOf(registered, timeZone) !== mes) return null;
  const chave = firstElementText(row.message, 'chNFSe') ?? '';
  const nSeq = (firstElementText(row.message, 'nPedRegEvento') ?? '1').padStart(2, '0');
  const name = `Eventos/${chave}-${tpEvento}-${nSeq}-evento.xml`;
  return {
    name,
    xml: answer,
    row: {
      tipo: `evento ${tpEvento} ${descricao}`,
      modelo: '98',
      serie: '',
      // The note's own number (nNFSe), read from its national key.
      numero: /^\d{50}$/.test(chave) ? String(Number(chave.slice(23, 36))) : '',
      numero_final: '',
      chave,
      data: localTime(registered, timeZone),
      status: 'registrado',
      valor_total: '',
      protocolo: row.answer_n_prot ?? firstElementText(answer, 'nDFSe') ?? '',
      arquivo: name,
    },
  };
}

/**
 * Writes the month's zip to `sink`: `NFe/` and `NFCe/` (`<chave>-procNFe.xml`), `Eventos/`
 * (`<chave>-<tpEvento>-<nSeq>-procEventoNFe.xml`), `Inutilizacoes/` (`<Id>-procInutNFe.xml`) and
 * `resumo.csv`. Each XML is the stored one byte for byte; they are read and compressed a batch at a time.
 * `mes` is `AAAA-MM`, read in the company's time zone (its UF's).
 */
export async function writeMonthExport(
  db: Db,
  company: Selectable<CompaniesTable>,
  mes: string,
  sink: ZipSink,
): Promise<MonthExportSummary> {
  const timeZone = ufBySigla(company.uf)?.timeZone ?? 'America/Sao_Paulo';
  const { from, to } = window(mes);
  const rows: CsvRow[] = [];
  const summary: MonthExportSummary = { notes: 0, events: 0, voids: 0 };

  let pending: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk, final) => {
    if (error !== null) failure = error;
    else pending.push(chunk);
    void final;
  });
  const flush = async () => {
    if (failure !== null) throw failure;
    const chunks = pending;
    pending = [];
    for (const chunk of chunks) await sink(chunk);
  };
  const add = async (name: string, text: string) => {
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(encoder.encode(text), true);
    await flush();
  };

  // --- notes, by series and number, a batch at a time (keyset on modelo, serie, n_nf, id) ---------------
  let after: { modelo: number; serie: number; n_nf: number; id: string } | null = null;
  for (;;) {
    let query = db
      .selectFrom('documents')
      .select(['id', 'modelo', 'serie', 'n_nf', 'chave', 'status', 'dh_emi', 'v_nf', 'n_prot'])
      // The authorized copy, whole or rebuilt from the signed XML and the protocol (documents/stored-xml.ts).
      .select(['xml', 'prot_xml', 'proc_xml', 'proc_open'])
      .where('company_id', '=', company.id)
      .where('ambiente', '=', company.ambiente)
      .where('status', 'in', EXPORTED_STATUSES)
      .where((eb) => eb.or([eb('proc_xml', 'is not', null), eb('proc_open', 'is not', null)]))
      .where('dh_emi', '>=', from)
      .where('dh_emi', '<', to);
    if (after !== null) {
      const a: { modelo: number; serie: number; n_nf: number; id: string } = after;
      query = query.where(
        sql<boolean>`(modelo, serie, n_nf, id) > (${a.modelo}, ${a.serie}, ${a.n_nf}, ${a.id})`,
      );
    }
    const batch = await query
      .orderBy('modelo')
      .orderBy('serie')
      .orderBy('n_nf')
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const doc of batch) {
      const proc = procOf(doc);
      if (proc === null || monthOf(doc.dh_emi, timeZone) !== mes) continue;
      const folder = FOLDERS[doc.modelo] ?? 'NFe';
      const suffix = PROC_SUFFIX[doc.modelo] ?? 'procNFe';
      const name = `${folder}/${doc.chave}-${suffix}.xml`;
      await add(name, proc);
      summary.notes++;
      rows.push({
        tipo: folder,
        modelo: String(doc.modelo),
        serie: String(doc.serie),
        numero: String(doc.n_nf),
        numero_final: '',
        chave: doc.chave,
        data: localTime(doc.dh_emi, timeZone),
        status: doc.status,
        valor_total: decimalComma(doc.v_nf),
        protocolo: doc.n_prot ?? '',
        arquivo: name,
      });
    }
    const last = batch.at(-1);
    if (last === undefined || batch.length < BATCH) break;
    after = { modelo: last.modelo, serie: last.serie, n_nf: last.n_nf, id: last.id };
  }

  // --- events the authority registered (cancellation, substitution, CC-e), from the queue's rows ---------
  let afterId = 0;
  for (;;) {
    const batch = await db
      .selectFrom('outbox')
      .select(['id', 'message', 'answer_xml', 'answer_n_prot'])
      .where('company_id', '=', company.id)
      .where('kind', '=', 'evento')
      .where('state', '=', 'done')
      .where('answer_xml', 'is not', null)
      .where('updated_at', '>=', from)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of batch) {
      if (row.message.includes('<pedRegEvento')) {
        const filed = nfseEventFile(row, company.ambiente, mes, timeZone);
        if (filed === null) continue;
        await add(filed.name, filed.xml);
        summary.events++;
        rows.push(filed.row);
        continue;
      }
      const tpEvento = firstElementText(row.message, 'tpEvento') ?? '';
      if (!ISSUER_EVENTS.has(tpEvento) || row.answer_xml === null) continue;
      // A CT-e's event (eventoCTe) is kept as procEventoCTe, a DC-e's (eventoDCe) as procEventoDCe, an NF-e's
      // as procEventoNFe.
      const family = row.message.includes('<eventoCTe')
        ? EVENT_FAMILIES.cte
        : row.message.includes('<eventoDCe')
          ? EVENT_FAMILIES.dce
          : EVENT_FAMILIES.nfe;
      let proc: string;
      try {
        proc = family.proc(row.message, row.answer_xml);
      } catch {
        continue; // the authority answered, but not a registration (a rejection): nothing to keep
      }
      const chave = firstElementText(row.message, family.keyTag) ?? '';
      if (firstElementText(row.message, 'tpAmb') !== (company.ambiente === 'producao' ? '1' : '2')) continue;
      const registered = firstElementText(row.answer_xml, 'dhRegEvento') ?? '';
      if (monthOf(registered, timeZone) !== mes) continue;
      const nSeq = (firstElementText(row.message, 'nSeqEvento') ?? '1').padStart(2, '0');
      const name = `Eventos/${chave}-${tpEvento}-${nSeq}-${family.suffix}.xml`;
      await add(name, proc);
      summary.events++;
      rows.push({
        tipo: `evento ${tpEvento} ${isTpEvento(tpEvento) ? DESC_EVENTO[tpEvento] : ''}`.trim(),
        modelo: chave.slice(20, 22),
        serie: String(Number(chave.slice(22, 25))),
        numero: String(Number(chave.slice(25, 34))),
        numero_final: '',
        chave,
        data: localTime(registered, timeZone),
        status: `registrado ${firstElementText(row.answer_xml, 'cStat') ?? ''}`.trim(),
        valor_total: '',
        protocolo: row.answer_n_prot ?? firstElementText(row.answer_xml, 'nProt') ?? '',
        arquivo: name,
      });
    }
    const last = batch.at(-1);
    if (last === undefined || batch.length < BATCH) break;
    afterId = last.id;
  }

  // --- inutilizações homologated ---------------------------------------------------------------------
  await refreshVoids(db, company.id);
  const vdb = db.withTables<{ number_voids: NumberVoidsTable }>();
  let afterVoid = '';
  for (;;) {
    const batch = await vdb
      .selectFrom('number_voids')
      .innerJoin('outbox', 'outbox.id', 'number_voids.outbox_id')
      .select([
        'number_voids.id',
        'number_voids.modelo',
        'number_voids.serie',
        'number_voids.n_ini',
        'number_voids.n_fin',
        'number_voids.xml',
        'number_voids.n_prot',
        'outbox.answer_xml',
      ])
      .where('number_voids.company_id', '=', company.id)
      .where('number_voids.ambiente', '=', company.ambiente)
      .where('number_voids.status', '=', 'homologada')
      .where('number_voids.updated_at', '>=', from)
      .where('number_voids.id', '>', afterVoid)
      .orderBy('number_voids.id')
      .limit(BATCH)
      .execute();
    for (const v of batch) {
      if (v.answer_xml === null) continue;
      const received = firstElementText(v.answer_xml, 'dhRecbto') ?? '';
      if (monthOf(received, timeZone) !== mes) continue;
      let proc: string;
      try {
        proc = procInutNFe(v.xml, v.answer_xml, { validate: false }).xml;
      } catch {
        continue;
      }
      const id = (/<infInut[^>]*\sId="ID(\d+)"/.exec(v.xml)?.[1] ?? v.id).trim();
      const name = `Inutilizacoes/${id}-procInutNFe.xml`;
      await add(name, proc);
      summary.voids++;
      rows.push({
        tipo: 'inutilizacao',
        modelo: String(v.modelo),
        serie: String(v.serie),
        numero: String(v.n_ini),
        numero_final: String(v.n_fin),
        chave: id,
        data: localTime(received, timeZone),
        status: 'inutilizada',
        valor_total: '',
        protocolo: v.n_prot ?? firstElementText(v.answer_xml, 'nProt') ?? '',
        arquivo: name,
      });
    }
    const last = batch.at(-1);
    if (last === undefined || batch.length < BATCH) break;
    afterVoid = last.id;
  }

  await add(
    'resumo.csv',
    [CSV_HEADER, ...rows.map((r) => CSV_HEADER.map((k) => r[k]))].map(csvLine).join(''),
  );
  zip.end();
  await flush();
  return summary;
}
