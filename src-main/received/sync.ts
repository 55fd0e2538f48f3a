// Notes addressed to the company, fetched with NFeDistribuicaoDFe (NT 2014.002) by ultNSU: the cursor and
// the authority's maxNSU are persisted per company; the loop stops when ultNSU reaches maxNSU; after a 137
// ("nenhum documento") — or a 656 — the authority is not asked again for an hour (rule 656, "Consumo
// Indevido"), and that wait is persisted so a restart keeps it.
import type { Clock } from '../clock.ts';
import { startPeriodic } from '../periodic.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { AuthorityPort, DistribuicaoAnswer } from '../outbox/ports.ts';
import { parseDistributed } from './parse.ts';
import { refreshManifestations } from './manifest.ts';
import { receivedDb, type DistributionStateTable } from './tables.ts';
import { newId } from '../ids.ts';

/** NT 2014.002: after 137 the same ultNSU may be asked again only one hour later (656 otherwise). */
export const DISTRIBUTION_WAIT_MS = 3600_000;
/** Answers per sync at most (50 documents each); the next sync goes on from the persisted cursor. */
const MAX_ROUNDS = 20;
const ZERO_NSU = '0'.repeat(15);

export interface ReceivedDeps {
  db: Db;
  clock: Clock;
  logger?: Logger;
  authorityFor(companyId: string): Promise<AuthorityPort>;
}

export interface SyncResult {
  /** Whether the authority was asked at all (false while the wait after a 137 runs). */
  consultado: boolean;
  consultas: number;
  documentos: number;
  novas: number;
  atualizadas: number;
  eventos: number;
  ultNSU: string;
  maxNSU: string;
  cStat: string | null;
  xMotivo: string | null;
  /** Until when the authority will not be asked (after a 137 or 656), or null. */
  proxima_consulta_em: string | null;
}

const nsu15 = (value: string) => value.replace(/\D/g, '').padStart(15, '0').slice(-15);
const nsuNumber = (value: string) => Number(value.replace(/\D/g, '') || '0');

export async function distributionState(db: Db, companyId: string): Promise<DistributionStateTable> {
  const row = await receivedDb(db)
    .selectFrom('distribution_state')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return (
    row ?? {
      company_id: companyId,
      ult_nsu: ZERO_NSU,
      max_nsu: ZERO_NSU,
      blocked_until: null,
      last_sync_at: null,
      last_c_stat: null,
      last_x_motivo: null,
      updated_at: new Date(0).toISOString(),
    }
  );
}

async function saveState(db: Db, state: DistributionStateTable): Promise<void> {
  const { company_id: _id, ...changes } = state;
  await receivedDb(db)
    .insertInto('distribution_state')
    .values(state)
    .onConflict((oc) => oc.column('company_id').doUpdateSet(changes))
    .execute();
}

const newReceivedId = newId;

interface Stored {
  novas: number;
  atualizadas: number;
  eventos: number;
}

/** Stores one answer's documents and the new cursor together: a crash never skips or repeats an NSU. */
async function storeAnswer(
  db: Db,
  companyId: string,
  answer: DistribuicaoAnswer,
  state: DistributionStateTable,
  stamp: string,
  logger: Logger | undefined,
): Promise<Stored> {
  return inTransaction(db, async (trx) => {
    const t = receivedDb(trx);
    const counts: Stored = { novas: 0, atualizadas: 0, eventos: 0 };
    for (const doc of answer.docs) {
      const nsu = nsu15(doc.NSU);
      const parsed = parseDistributed(doc.xml);
      if (parsed.kind === 'unknown') {
        logger?.warn('distribution: document of unknown kind kept out', {
          companyId,
          nsu,
          schema: doc.schema,
        });
        continue;
      }
      if (parsed.kind === 'event') {
        const inserted = await t
          .insertInto('received_events')
          .values({
            company_id: companyId,
            chave: parsed.chave,
            tp_evento: parsed.tpEvento,
            n_seq_evento: parsed.nSeqEvento,
            nsu,
            schema: doc.schema,
            xml: doc.xml,
            created_at: stamp,
          })
          .onConflict((oc) => oc.columns(['company_id', 'nsu']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) counts.eventos++;
        if (parsed.cancels) {
          await t
            .updateTable('received_notes')
            .set({ situacao: 'cancelada', updated_at: stamp })
            .where('company_id', '=', companyId)
            .where('chave', '=', parsed.chave)
            .execute();
        }
        continue;
      }
      const existing = await t
        .selectFrom('received_notes')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('chave', '=', parsed.chave)
        .executeTakeFirst();
      const summary = {
        emitente_cnpj: parsed.emitenteCnpj,
        emitente_nome: parsed.emitenteNome,
        emitente_ie: parsed.emitenteIe,
        tp_nf: parsed.tpNf,
        valor: parsed.valor,
        dh_emi: parsed.dhEmi,
        n_prot: parsed.nProt,
        dh_recbto: parsed.dhRecbto,
      };
      if (existing === undefined) {
        await t
          .insertInto('received_notes')
          .values({
            id: newReceivedId(),
            company_id: companyId,
            chave: parsed.chave,
            ...summary,
            situacao: parsed.situacao,
            nsu,
            schema: doc.schema,
            xml: doc.xml,
            completa: parsed.completa ? 1 : 0,
            manifestacao: null,
            manifestacao_status: null,
            created_at: stamp,
            updated_at: stamp,
          })
          .execute();
        counts.novas++;
        continue;
      }
      // The whole NF-e replaces the summary; a later summary never replaces the whole NF-e. A cancellation
      // already known is kept (the summary may be older than the event).
      const replaceXml = parsed.completa || existing.completa === 0;
      await t
        .updateTable('received_notes')
        .set({
          ...(replaceXml ? { ...summary, nsu, schema: doc.schema, xml: doc.xml } : {}),
          completa: existing.completa === 1 || parsed.completa ? 1 : 0,
          situacao: existing.situacao === 'cancelada' ? 'cancelada' : parsed.situacao,
          updated_at: stamp,
        })
        .where('id', '=', existing.id)
        .execute();
      counts.atualizadas++;
    }
    await saveState(trx, state);
    return counts;
  });
}

const running = new WeakMap<Db, Map<string, Promise<SyncResult>>>();

/**
 * Asks the authority for the documents after the persisted ultNSU until ultNSU reaches maxNSU, storing them
 * as it goes. Calls for one company never overlap (a concurrent call shares the running one): two queries
 * with the same ultNSU would earn a 656.
 * @throws AuthorityUnavailable when the authority does not answer (what was stored before stays).
 */
export function syncReceived(deps: ReceivedDeps, companyId: string): Promise<SyncResult> {
  let byCompany = running.get(deps.db);
  if (byCompany === undefined) {
    byCompany = new Map();
    running.set(deps.db, byCompany);
  }
  const current = byCompany.get(companyId);
  if (current !== undefined) return current;
  const run = runSync(deps, companyId).finally(() => byCompany.delete(companyId));
  byCompany.set(companyId, run);
  return run;
}

async function runSync(deps: ReceivedDeps, companyId: string): Promise<SyncResult> {
  const { db, clock } = deps;
  await refreshManifestations(db, companyId, clock.now());
  const company = await db
    .selectFrom('companies')
    .select(['cnpj'])
    .where('id', '=', companyId)
    .executeTakeFirstOrThrow();
  let state = await distributionState(db, companyId);
  const result: SyncResult = {
    consultado: false,
    consultas: 0,
    documentos: 0,
    novas: 0,
    atualizadas: 0,
    eventos: 0,
    ultNSU: state.ult_nsu,
    maxNSU: state.max_nsu,
    cStat: state.last_c_stat,
    xMotivo: state.last_x_motivo,
    proxima_consulta_em: null,
  };
  if (state.blocked_until !== null && state.blocked_until > clock.now().toISOString()) {
    result.proxima_consulta_em = state.blocked_until;
    return result;
  }
  const port = await deps.authorityFor(companyId);
  if (port.distribuicao === undefined) throw new Error('the authority port offers no NFeDistribuicaoDFe');

  for (let round = 0; round < MAX_ROUNDS; round++) {
    const answer = await port.distribuicao({ CNPJ: company.cnpj, ultNSU: state.ult_nsu });
    const now = clock.now();
    const stamp = now.toISOString();
    result.consultado = true;
    result.consultas++;
    result.cStat = answer.cStat;
    result.xMotivo = answer.xMotivo;
    const maxNsu = nsu15(answer.maxNSU);
    // Never move the cursor backwards, whatever the answer says.
    const answeredUlt = nsu15(answer.ultNSU);
    const ult = nsuNumber(answeredUlt) >= nsuNumber(state.ult_nsu) ? answeredUlt : state.ult_nsu;
    const base = { ...state, last_sync_at: stamp, last_c_stat: answer.cStat, last_x_motivo: answer.xMotivo };
    const waitUntil = new Date(now.getTime() + DISTRIBUTION_WAIT_MS).toISOString();

    if (answer.cStat === '138') {
      state = { ...base, ult_nsu: ult, max_nsu: maxNsu, blocked_until: null, updated_at: stamp };
      const stored = await storeAnswer(db, companyId, answer, state, stamp, deps.logger);
      result.documentos += answer.docs.length;
      result.novas += stored.novas;
      result.atualizadas += stored.atualizadas;
      result.eventos += stored.eventos;
      if (nsuNumber(ult) >= nsuNumber(maxNsu) || answer.docs.length === 0) break;
      continue;
    }
    if (answer.cStat === '137' || answer.cStat === '656') {
      // 137: nothing after ultNSU; 656: asked too soon (by us or another system with this certificate).
      state = { ...base, ult_nsu: ult, max_nsu: maxNsu, blocked_until: waitUntil, updated_at: stamp };
      await saveState(db, state);
      result.proxima_consulta_em = waitUntil;
      break;
    }
    if (answer.cStat === '589') {
      // ultNSU above the authority's highest: go on from its maxNSU.
      state = { ...base, ult_nsu: maxNsu, max_nsu: maxNsu, updated_at: stamp };
      await saveState(db, state);
      break;
    }
    // Any other answer is a rejection of the query (e.g. 593 CNPJ of another certificate, 252 environment).
    state = { ...base, updated_at: stamp };
    await saveState(db, state);
    deps.logger?.warn('distribution query rejected', {
      companyId,
      cStat: answer.cStat,
      xMotivo: answer.xMotivo,
    });
    break;
  }
  result.ultNSU = state.ult_nsu;
  result.maxNSU = state.max_nsu;
  return result;
}

// --------------------------------------------------------------------------------------------------------
// The authority for the routes: the service registers its resolver (startDistributionSync) per database.

const authorities = new WeakMap<Db, (companyId: string) => Promise<AuthorityPort>>();

export function registerDistributionAuthority(
  db: Db,
  authorityFor: (companyId: string) => Promise<AuthorityPort>,
): void {
  authorities.set(db, authorityFor);
}

export function distributionAuthority(db: Db): ((companyId: string) => Promise<AuthorityPort>) | undefined {
  return authorities.get(db);
}

export interface DistributionSyncOptions extends ReceivedDeps {
  /** How often the job looks for companies to sync (default 15 min); each waits its hour after a 137. */
  intervalMs?: number;
  /** Delay before the first round after start (default 5 min, so a start is not slowed by it). */
  firstRunDelayMs?: number;
}

export interface DistributionSync {
  /** One round over every company with an active certificate (also what the timer runs). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Registers the authority resolver for POST /v1/nfe/received/sync and starts the periodic sync of every
 * company with an active certificate. Failures are logged; a company waits its hour after a 137.
 */
export function startDistributionSync(options: DistributionSyncOptions): DistributionSync {
  const { db, logger } = options;
  registerDistributionAuthority(db, options.authorityFor);

  const runOnce = async () => {
    const companies = await db
      .selectFrom('companies')
      .innerJoin('certificates', 'certificates.company_id', 'companies.id')
      .select('companies.id')
      .where('certificates.active', '=', 1)
      .distinct()
      .execute();
    for (const { id } of companies) {
      if (periodic.stopped) return;
      try {
        const result = await syncReceived(options, id);
        if (result.novas + result.atualizadas + result.eventos > 0) {
          logger?.info('received notes synced', { companyId: id, ...result });
        }
      } catch (error) {
        logger?.warn('received notes sync failed', { companyId: id, error: String(error) });
      }
    }
  };
  const periodic = startPeriodic(runOnce, {
    firstRunDelayMs: options.firstRunDelayMs ?? 5 * 60_000,
    intervalMs: options.intervalMs ?? 15 * 60_000,
    onError: (error) => logger?.error('received notes round failed', { error: String(error) }),
  });
  return { runOnce, stop: () => periodic.stop() };
}
