// The NFS-e object of the API (§2.8) read back from its row, its signed DPS and the authorized <NFSe> (the
// documents of record), with its cancellation and substitution links; and the §4.6 list of /v1/nfse.
import { XMLParser } from 'fast-xml-parser';
import { sql } from 'kysely';
import type { Db } from '../../../db/client.ts';
import type { RowWindow } from '../../../db/paginate.ts';
import { pageOfKind } from '../../list.ts';
import type { DocumentRow } from '../../repository.ts';
import {
  eventsByDocument,
  refreshOpenEvents,
  withPendingEvents,
  type DocumentEventRow,
} from '../../events-service.ts';
import { nfseQrCodeUrl } from '../../../outputs/nfse-urls.ts';
import { NFSE_MODELO as MODELO } from './kind.ts';
import { nfseXmlOf } from './danfse.ts';
import { NFSE_TP_CANCEL as TP_CANCELAMENTO } from './events.ts';
import { findMunicipio } from '../../../reference/ibge.ts';
import { ufByCode } from '../../../../src-shared/uf.ts';
import type {
  NfseCancelamento,
  NfseStatus,
  NfseTomadorView,
  NfseView,
} from '../../../../src-shared/contracts/nfse-view.ts';
import { oneView } from '../../one-view.ts';

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, removeNSPrefix: true });

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const orNull = (s: string): string | null => (s === '' ? null : s);

/**
 * A decimal text of the layout (TSDec15V2) as the JSON number §2.8 asks for: a double holds every such value
 * exactly enough to print back the same decimal, so nothing is computed in binary floating point, only carried.
 */
const decimalNumber = (s: string): number => (s === '' ? 0 : Number(s));

/** §3: the NFS-e API shows the stored `autorizada` as `authorized`; only NFS-e views do. */
export function nfseStatusOf(status: DocumentRow['status'], cancelPending = false): NfseStatus {
  if (status === 'autorizada') return cancelPending ? 'processando' : 'authorized';
  return status as NfseStatus;
}

/** The stored statuses a list filter value selects (`authorized`/`autorizada`, `rejeitada` = `erro`). */
export function storedStatusOf(filter: string): DocumentRow['status'] {
  if (filter === 'authorized' || filter === 'autorizada') return 'autorizada';
  if (filter === 'rejeitada') return 'erro';
  return filter as DocumentRow['status'];
}

export interface NfseViewOptions {
  /** Scheme, host and port the links start with (`https://host:port`); '' gives paths. */
  base?: string;
  /** The note's events (the cancellation), oldest first. */
  events?: readonly DocumentEventRow[];
  /** A cancellation waits for the national environment: the note reads `processando` meanwhile. */
  eventPending?: boolean;
  /** The note that replaced this one (its `replaces` names this id). */
  replacedBy?: string | null;
  message?: string;
}

function tomadorOf(toma: Node, payloadTomador: Node): NfseTomadorView | null {
  const cpfCnpj = text(toma['CNPJ']) || text(toma['CPF']);
  if (cpfCnpj === '') return null;
  const end = obj(toma['end']);
  const endNac = obj(end['endNac']);
  const sent = obj(payloadTomador['endereco']);
  const cMun = text(endNac['cMun']);
  // The DPS carries the IBGE code only: the name comes from the IBGE table, as companies and customers show
  // theirs; the name the integrator sent, then the code, only for a code the table does not hold.
  const municipio = findMunicipio(cMun);
  return {
    cpf_cnpj: cpfCnpj,
    razao_social: text(toma['xNome']),
    email: orNull(text(toma['email'])),
    endereco:
      cMun === ''
        ? null
        : {
            logradouro: text(end['xLgr']),
            numero: text(end['nro']),
            bairro: text(end['xBairro']),
            municipio: municipio?.xMun ?? (text(sent['municipio']) || cMun),
            uf: municipio?.uf ?? (text(sent['uf']) || (ufByCode(cMun.slice(0, 2))?.sigla ?? '')),
            cep: text(endNac['CEP']),
          },
  };
}

function payloadOf(doc: DocumentRow): Node {
  try {
    return obj(JSON.parse(doc.payload_json) as unknown);
  } catch {
    return {};
  }
}

function cancelamentoOf(events: readonly DocumentEventRow[]): NfseCancelamento | null {
  const cancels = events.filter((e) => e.tp_evento === TP_CANCELAMENTO);
  // The last attempt tells: a rejected cancellation may be asked again.
  const last = cancels[cancels.length - 1];
  if (last === undefined) return null;
  let asked: Node = {};
  try {
    asked = obj(JSON.parse(last.payload) as unknown);
  } catch {
    // A payload that is not JSON shows no reason rather than failing the whole note.
  }
  const codigo = asked['codigo_motivo'];
  const justificativa = asked['justificativa'] ?? asked['xMotivo'];
  return {
    codigo_motivo: typeof codigo === 'number' ? codigo : null,
    justificativa: typeof justificativa === 'string' ? justificativa : null,
    status: last.status,
    protocolo: last.n_prot,
    cStat: last.c_stat,
    xMotivo: last.x_motivo,
    registrado_em: last.registered_at,
  };
}

/** The view of one NFS-e row; pure (the caller looks up its events and the note that replaced it). */
export function nfseView(doc: DocumentRow, options: NfseViewOptions = {}): NfseView {
  const dps = obj(obj(parser.parse(doc.xml))['DPS']);
  const inf = obj(dps['infDPS']);
  const cServ = obj(obj(inf['serv'])['cServ']);
  const valores = obj(inf['valores']);
  const tribMun = obj(obj(valores['trib'])['tribMun']);
  const authorized = nfseXmlOf(doc).nfse || null;
  const infNfse = authorized === null ? {} : obj(obj(parser.parse(authorized)['NFSe'])['infNFSe']);
  const nNfse = text(infNfse['nNFSe']);
  const chave50 = /^\d{50}$/.test(doc.chave) ? doc.chave : null;
  const base = `${options.base ?? ''}/v1/nfse/${doc.id}`;
  const aliquota = text(obj(infNfse['valores'])['pAliqAplic']) || text(tribMun['pAliq']);
  const vServ = text(obj(valores['vServPrest'])['vServ']) || doc.v_nf;
  return {
    id: doc.id,
    status: nfseStatusOf(doc.status, options.eventPending === true),
    numero_nfse: nNfse === '' ? null : Number(nNfse),
    chave_acesso_50: chave50,
    data_emissao: doc.dh_emi,
    valor_total: decimalNumber(vServ),
    danfse_url: `${base}/danfse`,
    xml_url: `${base}/xml`,
    qr_code_url: chave50 !== null && authorized !== null ? nfseQrCodeUrl(chave50) : null,
    protocolo: doc.n_prot,
    serie: doc.serie,
    numero: doc.n_nf,
    dps_id: dpsIdOf(doc.xml),
    codigo_tributacao_nacional: text(cServ['cTribNac']),
    descricao_servico: text(cServ['xDescServ']),
    valor_servico: decimalNumber(vServ),
    iss_retido: text(tribMun['tpRetISSQN']) === '2',
    aliquota_iss: orNull(aliquota),
    tomador: tomadorOf(obj(inf['toma']), obj(payloadOf(doc)['tomador'])),
    cStat: doc.c_stat,
    xMotivo: doc.x_motivo,
    substitui_nfse_id: doc.replaces,
    substituida_por_nfse_id: options.replacedBy ?? null,
    cancelamento: cancelamentoOf(options.events ?? []),
    ambiente: doc.ambiente,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    ...(options.message === undefined ? {} : { message: options.message }),
  };
}

/** The DPS Id (infDPS/@Id, `DPS` + 42 digits): the attribute, which the parser above leaves out. */
export function dpsIdOf(xml: string): string {
  return /<(?:\w+:)?infDPS\b[^>]*\bId="([^"]+)"/.exec(xml)?.[1] ?? '';
}

/**
 * The note that replaced each of `ids`: the authorized substitute when there is one, else the newest (a
 * substitute still on its way or in draft).
 */
async function replacementsOf(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const byOld = new Map<string, string>();
  if (ids.length === 0) return byOld;
  const rows = await db
    .selectFrom('documents')
    .select(['id', 'replaces', 'status'])
    .where('modelo', '=', MODELO)
    .where('replaces', 'in', ids)
    .orderBy('created_at')
    // Written in the same millisecond: the order they were written in (documents has a rowid on both stores).
    .orderBy(sql`rowid`)
    .execute();
  for (const row of rows) {
    if (row.replaces === null) continue;
    const current = byOld.get(row.replaces);
    const currentAuthorized =
      current !== undefined && rows.find((r) => r.id === current)?.status === 'autorizada';
    if (!currentAuthorized) byOld.set(row.replaces, row.id);
  }
  return byOld;
}

export async function nfseViews(db: Db, docs: readonly DocumentRow[], base = ''): Promise<NfseView[]> {
  const ids = docs.map((d) => d.id);
  await refreshOpenEvents(db, ids);
  const [events, pending, replaced] = await Promise.all([
    eventsByDocument(db, ids),
    withPendingEvents(db, ids),
    replacementsOf(db, ids),
  ]);
  return docs.map((doc) =>
    nfseView(doc, {
      base,
      events: events.get(doc.id) ?? [],
      eventPending: pending.has(doc.id),
      replacedBy: replaced.get(doc.id) ?? null,
    }),
  );
}

export async function nfseViewOf(
  db: Db,
  doc: DocumentRow,
  options: { base?: string; message?: string } = {},
): Promise<NfseView> {
  return oneView(nfseViews(db, [doc], options.base), options.message);
}

export interface NfseListFilter {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listNfse(
  db: Db,
  companyId: string,
  filter: NfseListFilter,
  window: RowWindow,
  base = '',
): Promise<{ items: NfseView[]; total: number }> {
  const status = filter.status === undefined ? undefined : storedStatusOf(filter.status);
  const { rows, total } = await pageOfKind(db, companyId, MODELO, { ...filter, status }, window);
  return { items: await nfseViews(db, rows, base), total };
}

/** The events' XML of GET /v1/nfse/:id/xml: the registered <evento> once answered, else the pedRegEvento sent. */
export async function nfseEventXml(db: Db, documentId: string): Promise<{ tpEvento: string; xml: string }[]> {
  const rows = (await eventsByDocument(db, [documentId])).get(documentId) ?? [];
  return rows.map((e) => ({ tpEvento: e.tp_evento, xml: e.proc_xml ?? e.xml }));
}
