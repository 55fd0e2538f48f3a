// The sandbox authority's registry: what a real SEFAZ knows about companies (CSC of the NFC-e QR code,
// irregular emitters and recipients for 301/302), its runtime settings, and read access to everything it
// registered (notes, authorizations per key, events, inutilizações, distribution documents, exchanges).
import type { Selectable } from 'kysely';
import type { Clock } from '../clock.ts';
import { normalizeCnpj } from '../../src-shared/tax-ids.ts';
import { cnpjRoot } from './certificates.ts';
import type { FaultControl, FaultService } from './faults.ts';
import { processDueLotes } from './services/authorization.ts';
import type { SandboxSettings } from './services/common.ts';
import type {
  CscVault,
  NoteStatus,
  RegisteredEvent,
  SandboxDatabase,
  SandboxDb,
  SandboxTx,
} from './store.ts';
import { markTripStarted, type TripEvidence } from './cte/control.ts';

export interface SandboxNote {
  chave: string;
  cnpj: string;
  cUF: number;
  mod: number;
  serie: number;
  nNF: number;
  tpEmis: number;
  tpAmb: number;
  status: NoteStatus;
  /** 100, 150, 301 or 302 (a cancelled note keeps its authorization cStat; status says cancelada). */
  cStat: number;
  nProt: string;
  dhRecbto: string;
  authorizedAt: Date;
  digVal: string;
  destId: string | null;
  nRec: string | null;
  /** The NFe element as received. */
  xml: string;
  protNFe: string;
}

/** What the registry shows of an event of any family (the columns of RegisteredEvent). */
export interface SandboxRegisteredEvent {
  chave: string;
  tpEvento: string;
  nSeqEvento: number;
  nProt: string;
  author: string;
  dhRegEvento: string;
  /** The event as received. */
  xml: string;
}

const registeredEvent = (r: Selectable<RegisteredEvent>): SandboxRegisteredEvent => ({
  chave: r.chave,
  tpEvento: r.tp_evento,
  nSeqEvento: r.n_seq_evento,
  nProt: r.n_prot,
  author: r.author,
  dhRegEvento: r.dh_reg_evento,
  xml: r.xml,
});

export interface SandboxEvent extends SandboxRegisteredEvent {
  cStat: number;
  linked: boolean;
  retEvento: string;
}

/** A CT-e 4.00 the sandbox authorized or denied (cte/reception.ts). */
export interface SandboxCte {
  chave: string;
  cnpj: string;
  cUF: number;
  serie: number;
  nCT: number;
  tpEmis: number;
  tpAmb: number;
  status: NoteStatus;
  cStat: number;
  nProt: string;
  dhRecbto: string;
  authorizedAt: Date;
  digVal: string;
  /** Set by markCteTripStarted: an MDF-e or a checkpoint passage; the cancellation is then refused. */
  tripStarted: TripEvidence | null;
  xml: string;
  protCTe: string;
}

export interface SandboxCteEvent extends SandboxRegisteredEvent {
  cStat: number;
  retEventoCTe: string;
}

/** A DC-e 1.00 the sandbox authorized (dce/reception.ts). */
export interface SandboxDce {
  chave: string;
  /** The issuing system's CNPJ, as in the key. */
  cnpj: string;
  cUF: number;
  serie: number;
  nDC: number;
  tpEmit: number;
  tpAmb: number;
  status: 'autorizada' | 'cancelada';
  nProt: string;
  dhRecbto: string;
  authorizedAt: Date;
  digVal: string;
  vDC: string;
  xml: string;
  protDCe: string;
}

export interface SandboxDceEvent extends SandboxRegisteredEvent {
  retEventoDCe: string;
}

export interface SandboxInutilizacao {
  cnpj: string;
  cUF: number;
  ano: number;
  mod: number;
  serie: number;
  nNFIni: number;
  nNFFin: number;
  tpAmb: number;
  nProt: string;
  dhRecbto: string;
  xml: string;
}

export interface SandboxDocument {
  nsu: number;
  schema: string;
  chave: string;
  xml: string;
}

export type ExchangeOutcome = 'answered' | 'lost' | 'timeout' | 'refused' | 'fault';

export interface SandboxExchange {
  at: Date;
  /** A SOAP service, or NFSeSefinNacional / NFSeParametrosMunicipais for the national NFS-e's REST calls. */
  service: FaultService;
  clientCnpj: string | null;
  cStat: string | null;
  outcome: ExchangeOutcome;
}

export interface CompanyConfig {
  cnpj: string;
  /**
   * CSCs of the NFC-e QR code v2, kept per establishment (full CNPJ): each branch registers its own CSC on
   * the SEFAZ portal, and two branches of one root sharing a CSC id must not overwrite each other's token.
   */
  csc?: ReadonlyArray<{ id: string; token: string; revoked?: boolean }>;
  /** Irregular emitter: its notes are denied with 301. */
  emitterDenied?: boolean;
  /** Irregular recipient: notes addressed to it are denied with 302. */
  recipientDenied?: boolean;
}

/** Runs `work` after the due asynchronous lotes, one at a time with the requests the server handles. */
export type Serialized = <T>(work: (db: SandboxTx, now: Date) => Promise<T>) => Promise<T>;

export class SandboxRegistry {
  constructor(
    private readonly db: SandboxDb,
    private readonly serialized: Serialized,
    private readonly clock: Clock,
    private readonly faults: FaultControl,
    /** Live settings object shared with the server (updateSettings mutates it). */
    readonly settings: SandboxSettings,
    /** Seals the CSC tokens registered here (they are kept only sealed). */
    private readonly vault: CscVault,
  ) {}

  async configureCompany(config: CompanyConfig): Promise<void> {
    const cnpj = normalizeCnpj(config.cnpj);
    const updatedAt = this.clock.now().toISOString();
    await this.serialized(async (db) => {
      if (config.emitterDenied !== undefined || config.recipientDenied !== undefined) {
        const flags = {
          ...(config.emitterDenied === undefined ? {} : { emitter_denied: config.emitterDenied ? 1 : 0 }),
          ...(config.recipientDenied === undefined
            ? {}
            : { recipient_denied: config.recipientDenied ? 1 : 0 }),
        };
        await db
          .insertInto('companies')
          .values({ cnpj, emitter_denied: 0, recipient_denied: 0, ...flags, updated_at: updatedAt })
          .onConflict((oc) => oc.column('cnpj').doUpdateSet({ ...flags, updated_at: updatedAt }))
          .execute();
      }
      for (const csc of config.csc ?? []) {
        if (!/^[0-9]{1,6}$/.test(csc.id) || csc.token.trim() === '') {
          throw new RangeError('a CSC has an id of 1-6 digits and a non-empty token');
        }
        const row = {
          token: this.vault.seal(csc.token),
          revoked: csc.revoked ? 1 : 0,
          updated_at: updatedAt,
        };
        await db
          .insertInto('cscs')
          .values({ cnpj, csc_id: String(Number(csc.id)), ...row })
          .onConflict((oc) => oc.columns(['cnpj', 'csc_id']).doUpdateSet(row))
          .execute();
      }
    });
  }

  setCsc(cnpj: string, id: string, token: string): Promise<void> {
    return this.configureCompany({ cnpj, csc: [{ id, token }] });
  }

  async revokeCsc(cnpj: string, id: string): Promise<void> {
    await this.serialized((db) =>
      db
        .updateTable('cscs')
        .set({ revoked: 1, updated_at: this.clock.now().toISOString() })
        // A row of an earlier release, under the root, is revoked too: it answers for the branch.
        .where('cnpj', 'in', [normalizeCnpj(cnpj), cnpjRoot(normalizeCnpj(cnpj))])
        .where('csc_id', '=', String(Number(id)))
        .execute(),
    );
  }

  /**
   * Registers (or revokes) a CSRT the authority issued to a technical responsible (NT 2018.005): notes whose
   * infRespTec names this CNPJ and idCSRT must carry hashCSRT = base64(SHA-1(CSRT + chave)) (976/977/978).
   */
  async registerCsrt(cnpj: string, idCSRT: string, csrt: string, revoked = false): Promise<void> {
    if (!/^[0-9]{1,2}$/.test(idCSRT) || csrt.trim() === '') {
      throw new RangeError('a CSRT has an id of 1-2 digits and a non-empty token');
    }
    const row = {
      token: this.vault.seal(csrt),
      revoked: revoked ? 1 : 0,
      updated_at: this.clock.now().toISOString(),
    };
    await this.serialized((db) =>
      db
        .insertInto('csrts')
        .values({ cnpj: normalizeCnpj(cnpj), id_csrt: idCSRT.padStart(2, '0'), ...row })
        .onConflict((oc) => oc.columns(['cnpj', 'id_csrt']).doUpdateSet(row))
        .execute(),
    );
  }

  denyEmitter(cnpj: string, denied = true): Promise<void> {
    return this.configureCompany({ cnpj, emitterDenied: denied });
  }

  denyRecipient(cnpjOrCpf: string, denied = true): Promise<void> {
    return this.configureCompany({ cnpj: cnpjOrCpf, recipientDenied: denied });
  }

  /** Pauses every service (108/109) or resumes them; the same switch as faults.pause(). */
  setPaused(cStat: 108 | 109 | null): void {
    this.faults.pause(cStat);
  }

  get paused(): 108 | 109 | null {
    return this.faults.pausedFor('NFeStatusServico4');
  }

  updateSettings(changes: Partial<SandboxSettings>): void {
    Object.assign(this.settings, changes);
  }

  /** The rows of a family's documents table (of one issuing CNPJ when given), in the order they were authorized. */
  private documentRows<T extends 'notes' | 'cte_documents' | 'dce_documents'>(
    table: T,
    cnpj: string | undefined,
  ): Promise<Selectable<SandboxDatabase[T]>[]> {
    return this.serialized((db) => {
      // Kysely cannot narrow a generic table name; the columns used are in every documents table.
      let q = db.selectFrom(table as 'cte_documents').selectAll();
      if (cnpj !== undefined) q = q.where('cnpj', '=', normalizeCnpj(cnpj));
      return q.orderBy('authorized_at').orderBy('n_prot').execute() as Promise<
        Selectable<SandboxDatabase[T]>[]
      >;
    });
  }

  /** The rows of a family's events table (of one key when given), in the order they were registered. */
  private eventRows<T extends 'events' | 'cte_events' | 'dce_events'>(
    table: T,
    chave: string | undefined,
  ): Promise<Selectable<SandboxDatabase[T]>[]> {
    return this.serialized((db) => {
      // Kysely cannot narrow a generic table name; every events table is a RegisteredEvent, and its rows are T's.
      let q = db.selectFrom(table as 'events').selectAll();
      if (chave !== undefined) q = q.where('chave', '=', chave);
      return q.orderBy('id').execute() as Promise<Selectable<SandboxDatabase[T]>[]>;
    });
  }

  async notes(cnpj?: string): Promise<SandboxNote[]> {
    const rows = await this.documentRows('notes', cnpj);
    return rows.map((r) => ({
      chave: r.chave,
      cnpj: r.cnpj,
      cUF: r.c_uf,
      mod: r.mod,
      serie: r.serie,
      nNF: r.n_nf,
      tpEmis: r.tp_emis,
      tpAmb: r.tp_amb,
      status: r.status,
      cStat: r.c_stat,
      nProt: r.n_prot,
      dhRecbto: r.dh_recbto,
      authorizedAt: new Date(r.authorized_at),
      digVal: r.dig_val,
      destId: r.dest_id,
      nRec: r.n_rec,
      xml: r.xml,
      protNFe: r.prot_xml,
    }));
  }

  async note(chave: string): Promise<SandboxNote | undefined> {
    return (await this.notes()).find((n) => n.chave === chave);
  }

  /** Authorization and denial protocols issued for `chave`: more than 1 would be a duplicate. */
  async authorizationCount(chave: string): Promise<number> {
    const row = await this.serialized((db) =>
      db
        .selectFrom('protocols')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('chave', '=', chave)
        .where('kind', 'in', ['autorizacao', 'denegacao'])
        .executeTakeFirstOrThrow(),
    );
    return Number(row.n);
  }

  async events(chave?: string): Promise<SandboxEvent[]> {
    const rows = await this.eventRows('events', chave);
    return rows.map((r) => ({
      ...registeredEvent(r),
      cStat: r.c_stat,
      linked: r.linked === 1,
      retEvento: r.ret_xml,
    }));
  }

  async ctes(cnpj?: string): Promise<SandboxCte[]> {
    const rows = await this.documentRows('cte_documents', cnpj);
    return rows.map((r) => ({
      chave: r.chave,
      cnpj: r.cnpj,
      cUF: r.c_uf,
      serie: r.serie,
      nCT: r.n_ct,
      tpEmis: r.tp_emis,
      tpAmb: r.tp_amb,
      status: r.status,
      cStat: r.c_stat,
      nProt: r.n_prot,
      dhRecbto: r.dh_recbto,
      authorizedAt: new Date(r.authorized_at),
      digVal: r.dig_val,
      tripStarted: r.trip_started,
      xml: r.xml,
      protCTe: r.prot_xml,
    }));
  }

  async cte(chave: string): Promise<SandboxCte | undefined> {
    return (await this.ctes()).find((c) => c.chave === chave);
  }

  async cteEvents(chave?: string): Promise<SandboxCteEvent[]> {
    const rows = await this.eventRows('cte_events', chave);
    return rows.map((r) => ({
      ...registeredEvent(r),
      cStat: r.c_stat,
      retEventoCTe: r.ret_xml,
    }));
  }

  /** The DC-e the sandbox authorized (of one issuing CNPJ when given), in the order they were authorized. */
  async dces(cnpj?: string): Promise<SandboxDce[]> {
    const rows = await this.documentRows('dce_documents', cnpj);
    return rows.map((r) => ({
      chave: r.chave,
      cnpj: r.cnpj,
      cUF: r.c_uf,
      serie: r.serie,
      nDC: r.n_dc,
      tpEmit: r.tp_emit,
      tpAmb: r.tp_amb,
      status: r.status,
      nProt: r.n_prot,
      dhRecbto: r.dh_recbto,
      authorizedAt: new Date(r.authorized_at),
      digVal: r.dig_val,
      vDC: r.v_dc,
      xml: r.xml,
      protDCe: r.prot_xml,
    }));
  }

  async dce(chave: string): Promise<SandboxDce | undefined> {
    return (await this.dces()).find((d) => d.chave === chave);
  }

  async dceEvents(chave?: string): Promise<SandboxDceEvent[]> {
    const rows = await this.eventRows('dce_events', chave);
    return rows.map((r) => ({
      ...registeredEvent(r),
      retEventoDCe: r.ret_xml,
    }));
  }

  /** The trip of CT-e `chave` started (an MDF-e, or a checkpoint passage); false when no such CT-e. */
  markCteTripStarted(chave: string, evidence: TripEvidence = 'mdfe'): Promise<boolean> {
    return this.serialized((db) => markTripStarted(db, chave, evidence));
  }

  async inutilizacoes(cnpj?: string): Promise<SandboxInutilizacao[]> {
    const rows = await this.serialized((db) => {
      let q = db.selectFrom('inutilizacoes').selectAll();
      if (cnpj !== undefined) q = q.where('cnpj', '=', normalizeCnpj(cnpj));
      return q.orderBy('id').execute();
    });
    return rows.map((r) => ({
      cnpj: r.cnpj,
      cUF: r.c_uf,
      ano: r.ano,
      mod: r.mod,
      serie: r.serie,
      nNFIni: r.n_nf_ini,
      nNFFin: r.n_nf_fin,
      tpAmb: r.tp_amb,
      nProt: r.n_prot,
      dhRecbto: r.dh_recbto,
      xml: r.xml,
    }));
  }

  /** The distribution documents of `interested` (CNPJ or CPF), by NSU. */
  async documents(interested: string): Promise<SandboxDocument[]> {
    const rows = await this.serialized((db) =>
      db
        .selectFrom('dfe_docs')
        .selectAll()
        .where('interested', '=', normalizeCnpj(interested))
        .orderBy('nsu')
        .execute(),
    );
    return rows.map((r) => ({ nsu: r.nsu, schema: r.schema, chave: r.chave, xml: r.xml }));
  }

  /** Every request the web services received, with what happened to it. */
  async exchanges(): Promise<SandboxExchange[]> {
    const rows = await this.serialized((db) =>
      db.selectFrom('exchanges').selectAll().orderBy('id').execute(),
    );
    return rows.map((r) => ({
      at: new Date(r.at),
      service: r.service as FaultService,
      clientCnpj: r.client_cnpj,
      cStat: r.c_stat,
      outcome: r.outcome as ExchangeOutcome,
    }));
  }
}

/** Builds the serialized runner: one transaction per unit of work, due lotes processed first. */
export function serializer(
  db: SandboxDb,
  clock: Clock,
  settings: SandboxSettings,
  vault: CscVault,
): Serialized {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: (tx: SandboxTx, now: Date) => Promise<T>): Promise<T> => {
    const run = tail.then(() =>
      db.transaction().execute(async (trx) => {
        const now = clock.now();
        await processDueLotes(trx, now, settings, vault);
        return work(trx, now);
      }),
    );
    tail = run.catch(() => undefined);
    return run;
  };
}
