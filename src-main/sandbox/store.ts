// The sandbox authority's SQLite file: table types, opening with its own migrations, the numbering of
// protocols, receipts and NSUs, and the date-time formats the answers use.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Migrator, sql, type Generated, type Kysely, type Transaction } from 'kysely';
import { openSqlite } from '../db/client.ts';
import { SecretBox } from '../security/secret-box.ts';
import { formatDateTimeTz } from '../fiscal/datetime.ts';
import { ufByCode } from '../../src-shared/uf.ts';
import { sandboxMigrationProvider } from './migrations/index.ts';

export type NoteStatus = 'autorizada' | 'denegada' | 'cancelada';

/** The columns of an event the sandbox registered, in each family's table (events, cte_events, dce_events). */
export interface RegisteredEvent {
  id: Generated<number>;
  chave: string;
  tp_evento: string;
  n_seq_evento: number;
  tp_amb: number;
  c_orgao: number;
  author: string;
  dh_evento: string;
  n_prot: string;
  dh_reg_evento: string;
  registered_at: string;
  /** The event as received. */
  xml: string;
  /** The authority's answer to it (retEvento, retEventoCTe, retEventoDCe). */
  ret_xml: string;
}

export interface SandboxDatabase {
  server_identity: { id: number; key_pem: string; cert_pem: string; created_at: string };
  sequences: { name: string; value: number };
  companies: { cnpj: string; emitter_denied: number; recipient_denied: number; updated_at: string };
  /** token: sealed by the store's CscVault (`v1.<iv>.<tag>.<ciphertext>`), never in clear. */
  cscs: { cnpj: string; csc_id: string; token: string; revoked: number; updated_at: string };
  /** CSRTs by the technical responsible's CNPJ and idCSRT; token sealed like the CSC's. */
  csrts: { cnpj: string; id_csrt: string; token: string; revoked: number; updated_at: string };
  notes: {
    chave: string;
    cnpj: string;
    c_uf: number;
    mod: number;
    serie: number;
    n_nf: number;
    tp_emis: number;
    tp_amb: number;
    natural_key: string;
    status: NoteStatus;
    c_stat: number;
    n_prot: string;
    dh_recbto: string;
    authorized_at: string;
    dig_val: string;
    dh_emi: string;
    v_nf: string;
    tp_nf: string;
    x_nome: string;
    ie: string;
    dest_id: string | null;
    n_rec: string | null;
    xml: string;
    prot_xml: string;
  };
  protocols: {
    n_prot: string;
    kind: 'autorizacao' | 'denegacao' | 'evento' | 'inutilizacao';
    chave: string | null;
    issued_at: string;
  };
  lotes: {
    n_rec: string;
    c_uf: number;
    tp_amb: number;
    client_cnpj: string | null;
    received_at: string;
    ready_at: string;
    processed_at: string | null;
    /** JSON array of the NFe elements exactly as received. */
    nfes: string;
    /** JSON array of protNFe elements once processed. */
    results: string | null;
  };
  events: RegisteredEvent & { c_stat: number; linked: number };
  inutilizacoes: {
    id: Generated<number>;
    cnpj: string;
    c_uf: number;
    ano: number;
    mod: number;
    serie: number;
    n_nf_ini: number;
    n_nf_fin: number;
    tp_amb: number;
    n_prot: string;
    dh_recbto: string;
    registered_at: string;
    xml: string;
    ret_xml: string;
  };
  dfe_docs: {
    interested: string;
    nsu: number;
    schema: string;
    chave: string;
    xml: string;
    created_at: string;
  };
  dist_queries: {
    id: Generated<number>;
    interested: string;
    ult_nsu: number;
    c_stat: number;
    answered_at: string;
  };
  /** CT-e 4.00 (model 57) authorized by the sandbox: see cte/ and migration 0003. */
  cte_documents: {
    chave: string;
    cnpj: string;
    c_uf: number;
    serie: number;
    n_ct: number;
    tp_emis: number;
    tp_amb: number;
    natural_key: string;
    status: NoteStatus;
    c_stat: number;
    n_prot: string;
    dh_recbto: string;
    authorized_at: string;
    dig_val: string;
    dh_emi: string;
    v_tprest: string;
    trip_started: 'mdfe' | 'circulacao' | null;
    xml: string;
    prot_xml: string;
  };
  cte_events: RegisteredEvent & { c_stat: number };
  /** The national NFS-e environment: see nfse/ and migration 0004. */
  nfse_notes: {
    chave: string;
    id_dps: string;
    prestador: string;
    tomador: string | null;
    c_loc_emi: string;
    tp_amb: number;
    n_nfse: number;
    n_dfse: string;
    c_stat: string;
    status: 'autorizada' | 'cancelada' | 'substituida';
    dh_proc: string;
    authorized_at: string;
    c_trib_nac: string;
    v_serv: string;
    ch_substda: string | null;
    substituida_por: string | null;
    dps_xml: string;
    xml: string;
  };
  nfse_events: {
    id: Generated<number>;
    chave: string;
    tipo_evento: string;
    n_seq_evento: number;
    id_ped_reg: string | null;
    author: string;
    n_dfe: string;
    dh_proc: string;
    registered_at: string;
    ped_xml: string | null;
    xml: string;
  };
  nfse_municipios: { c_mun: string; aderente: number; aliquotas: string; updated_at: string };
  /** DC-e 1.00 (model 99) authorized by the sandbox: see dce/ and migration 0005. */
  dce_documents: {
    chave: string;
    cnpj: string;
    c_uf: number;
    serie: number;
    n_dc: number;
    tp_emit: number;
    tp_amb: number;
    natural_key: string;
    status: 'autorizada' | 'cancelada';
    n_prot: string;
    dh_recbto: string;
    authorized_at: string;
    dig_val: string;
    dh_emi: string;
    v_dc: string;
    xml: string;
    prot_xml: string;
  };
  dce_events: RegisteredEvent & { event_id: string };
  exchanges: {
    id: Generated<number>;
    at: string;
    service: string;
    client_cnpj: string | null;
    c_stat: string | null;
    outcome: string;
  };
}

export type SandboxDb = Kysely<SandboxDatabase>;
export type SandboxTx = Transaction<SandboxDatabase> | SandboxDb;

/**
 * The CSC tokens the authority registers are secrets of the taxpayer (with one, anyone can forge the QR code
 * hash of its NFC-e): kept sealed with AES-256-GCM, opened only to check a QR code.
 */
export interface CscVault {
  seal(token: string): string;
  /** null when the token was sealed under another key (the registration is then as good as absent). */
  open(sealed: string): string | null;
}

export function cscVault(box: SecretBox): CscVault {
  return {
    seal: (token) => box.seal(token),
    open: (sealed) => {
      try {
        return box.openText(sealed);
      } catch {
        return null;
      }
    },
  };
}

const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The standalone authority's own key, beside its SQLite file (`authority.sqlite` -> `authority.key`), mode
 * 0600, made at its first start. The embedded authority is given the service's master key instead.
 */
export function loadStoreKey(dataFile: string): Buffer {
  const file = path.join(path.dirname(dataFile), `${path.basename(dataFile, path.extname(dataFile))}.key`);
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  // 'wx': two authorities starting on the same file cannot overwrite each other's key.
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
}

export interface SandboxStore {
  db: SandboxDb;
  vault: CscVault;
  close(): Promise<void>;
}

/** `secrets`: the box the CSC tokens are sealed with; default the store's own key (loadStoreKey). */
export async function openSandboxStore(file: string, secrets?: SecretBox): Promise<SandboxStore> {
  const opened = openSqlite<SandboxDatabase>(file);
  const migrator = new Migrator({ db: opened.db, provider: sandboxMigrationProvider });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await opened.close();
    throw error instanceof Error ? error : new Error(`sandbox migration failed: ${String(error)}`);
  }
  try {
    const vault = cscVault(secrets ?? new SecretBox(loadStoreKey(file)));
    await sealClearTokens(opened.db, vault);
    return { ...opened, vault };
  } catch (failure) {
    await opened.close();
    throw failure;
  }
}

/**
 * Earlier releases kept the tokens in clear: seal them, then drop the clear text from the WAL and the free
 * pages (VACUUM rewrites the file), so no copy of the file taken afterwards holds them.
 */
async function sealClearTokens(db: SandboxDb, vault: CscVault): Promise<void> {
  const rows = await db.selectFrom('cscs').select(['cnpj', 'csc_id', 'token']).execute();
  const clear = rows.filter((r) => !SEALED.test(r.token));
  if (clear.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const r of clear) {
      await trx
        .updateTable('cscs')
        .set({ token: vault.seal(r.token) })
        .where('cnpj', '=', r.cnpj)
        .where('csc_id', '=', r.csc_id)
        .execute();
    }
  });
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  await sql`VACUUM`.execute(db);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}

/** Next value of a named counter, starting at 1; runs inside the caller's transaction. */
/**
 * The CT-e or DC-e the sandbox stored under `chave` (sameKey) or, when none, another one of the same
 * natural key (emitter, series and number: sameNumber), for the duplicate rules of a reception.
 */
export async function storedOfKeyOrNumber<T extends 'cte_documents' | 'dce_documents'>(
  db: SandboxTx,
  table: T,
  chave: string,
  naturalKey: string,
): Promise<{ sameKey: SandboxDatabase[T] | undefined; sameNumber: SandboxDatabase[T] | undefined }> {
  // Kysely cannot narrow a generic table name: the query runs on the union and its row is the table's by `T`.
  const rows = (column: 'chave' | 'natural_key', value: string) =>
    db
      .selectFrom(table as 'cte_documents' | 'dce_documents')
      .selectAll()
      .where(column, '=', value)
      .executeTakeFirst() as Promise<SandboxDatabase[T] | undefined>;
  const sameKey = await rows('chave', chave);
  return { sameKey, sameNumber: sameKey !== undefined ? undefined : await rows('natural_key', naturalKey) };
}

/** Each CT-e / DC-e table's events table. */
const EVENTS_OF = { cte_documents: 'cte_events', dce_documents: 'dce_events' } as const;

/**
 * The CT-e or DC-e stored under `chave` in environment `tpAmb` and the events registered for it, in order, as a
 * consultation answers them; undefined when there is no such document.
 */
export async function storedWithEvents<T extends 'cte_documents' | 'dce_documents'>(
  db: SandboxTx,
  table: T,
  chave: string,
  tpAmb: number,
): Promise<{ row: SandboxDatabase[T]; events: { xml: string; ret_xml: string }[] } | undefined> {
  // Kysely cannot narrow a generic table name: the query runs on the union and its row is the table's by `T`.
  const row = (await db
    .selectFrom(table as 'cte_documents' | 'dce_documents')
    .selectAll()
    .where('chave', '=', chave)
    .where('tp_amb', '=', tpAmb)
    .executeTakeFirst()) as SandboxDatabase[T] | undefined;
  if (row === undefined) return undefined;
  // Both events tables are RegisteredEvent: typed as one of them, the query reads only their common columns.
  const events = await db
    .selectFrom(EVENTS_OF[table] as 'cte_events')
    .select(['xml', 'ret_xml'])
    .where('chave', '=', chave)
    .where('tp_amb', '=', tpAmb)
    .orderBy('id')
    .execute();
  return { row, events };
}

export async function nextSequence(db: SandboxTx, name: string): Promise<number> {
  const row = await db
    .insertInto('sequences')
    .values({ name, value: 1 })
    .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ value: eb('sequences.value', '+', 1) })))
    .returning('value')
    .executeTakeFirstOrThrow();
  return row.value;
}

/**
 * nProt, TProt of 15 digits: 1 position for the authority type (1 = SEFAZ of a UF, 2 = Receita Federal, which
 * runs the Ambiente Nacional), the 2-digit organ code, the 2-digit year and a 10-digit sequence in the year
 * (retDistDFeInt/resNFe_v1.01.xsd documentation of nProt; e.g. 135180009082761).
 */
export async function nextProtocol(db: SandboxTx, cOrgao: number, at: Date): Promise<string> {
  const yy = String(at.getUTCFullYear() % 100).padStart(2, '0');
  const organ = String(cOrgao).padStart(2, '0');
  const seq = await nextSequence(db, `nProt:${organ}:${yy}`);
  return `${cOrgao >= 90 ? '2' : '1'}${organ}${yy}${String(seq).padStart(10, '0')}`;
}

/** nRec, TRec of 15 digits: UF code, authority type 1 and a 12-digit sequence. */
export async function nextReceipt(db: SandboxTx, cUF: number): Promise<string> {
  const seq = await nextSequence(db, `nRec:${cUF}`);
  return `${String(cUF).padStart(2, '0')}1${String(seq).padStart(12, '0')}`;
}

/** The Ambiente Nacional (cOrgao 91) and the distribution service answer in Brasília time. */
export const AN_TIME_ZONE = 'America/Sao_Paulo';

/** TDateTimeUTC in the UF's own offset (dhRecbto, dhRegEvento), e.g. 2026-11-22T12:30:00-03:00. */
export function localDateTime(at: Date, cOrgao: number): string {
  return formatDateTimeTz(at, ufByCode(cOrgao)?.timeZone ?? AN_TIME_ZONE);
}

export function nsuText(nsu: number): string {
  return String(nsu).padStart(15, '0');
}
