// The queue worker is kind-neutral: with a test kind whose authority speaks its own cStats ('900' authorizes,
// '100' means nothing to it), the worker settles, pauses, consults before a resend, and applies events and
// voids only through what the kind says. Real SQLite with every migration; the authority is a script.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { migrateToLatest, openDatabase, type Db } from '../db/client.ts';
import { createLogger } from '../logger.ts';
import type { DocumentKind, KindProtocol } from '../documents/kind.ts';
import { documentsRepository, type DocumentRow } from '../documents/repository.ts';
import { AUTHORIZATION_MESSAGE, outboxRepository } from './repository.ts';
import {
  AuthorityUnavailable,
  type AuthorityPort,
  type AuthorizeAnswer,
  type ConsultAnswer,
} from './ports.ts';
import { OutboxWorker, type KindSource } from './worker.ts';

const CHAVE = '35261112345678000199570010000000011000000010';

/** A protocol unlike the NF-e's: its codes are the test's own, so a worker that knew NF-e codes would fail. */
const testProtocol: KindProtocol = {
  protocolOutcome: (c) =>
    c === '900' ? 'authorized' : c === '910' ? 'denied' : c === '920' ? 'duplicate' : 'rejected',
  messageOutcome: (c) => (c === '970' ? 'paused' : c === '960' ? 'processed' : 'rejected'),
  consultOutcome: (c) => (c === '980' ? 'not_found' : 'unknown'),
  eventDone: (c) => c === '955',
  voidDone: (c, single) => c === '956' || (c === '957' && single),
  inService: (c) => c === '999',
  proc: (signed, protocol) => `<proc>${signed}${protocol}</proc>`,
};

const testKind: DocumentKind = {
  id: 'cte',
  modelo: 57,
  label: 'Test document',
  webhookEvents: {},
  protocol: testProtocol,
  prepare: () => Promise.reject(new Error('not used by the worker')),
  serieOf: () => null,
  events: [
    {
      tpEvento: 'T-CANCEL',
      action: 'cancel',
      settles: 'cancelada',
      allowedFrom: ['autorizada'],
      maxSeq: 1,
      build: () => ({ xml: '', payload: {} }),
    },
    {
      tpEvento: 'T-NOTE',
      action: 'correct',
      allowedFrom: ['autorizada'],
      maxSeq: 20,
      build: () => ({ xml: '', payload: {} }),
    },
  ],
};

const kinds: KindSource = {
  byId: (id) => {
    if (id !== testKind.id) throw new Error(`no document kind '${id}' is registered`);
    return testKind;
  },
  all: () => [testKind],
};

const protocol = (cStat: string) => ({
  chave: CHAVE,
  cStat,
  xMotivo: `motivo ${cStat}`,
  nProt: cStat === '900' ? '157260000000001' : null,
  dhRecbto: '2026-11-24T10:00:00-03:00',
  xml: `<protTest><cStat>${cStat}</cStat></protTest>`,
});

/** Answers from a script, one per call; records what was asked. */
class ScriptedAuthority implements AuthorityPort {
  authorizeAnswers: (AuthorizeAnswer | Error)[] = [];
  consultAnswers: (ConsultAnswer | Error)[] = [];
  eventAnswers: { cStat: string; xMotivo: string }[] = [];
  voidAnswers: { cStat: string; xMotivo: string }[] = [];
  readonly calls: string[] = [];
  /** The XML each authorization delivered. */
  readonly authorized: string[] = [];

  private next<T>(list: (T | Error)[], what: string): Promise<T> {
    this.calls.push(what);
    const answer = list.shift();
    if (answer === undefined) return Promise.reject(new Error(`no scripted ${what} answer`));
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }

  authorize = (xml: string) => {
    this.authorized.push(xml);
    return this.next(this.authorizeAnswers, 'authorize');
  };
  consult = () => this.next(this.consultAnswers, 'consult');
  status = () => Promise.resolve({ cStat: '999', xMotivo: 'em operacao' });
  sendEvent = async () => {
    const a = await this.next(this.eventAnswers, 'event');
    return { cStat: '960', xMotivo: 'processado', result: { ...a, nProt: '1', xml: '<retTest/>' } };
  };
  sendInutilizacao = async () => {
    const a = await this.next(this.voidAnswers, 'void');
    return { ...a, nProt: '2', xml: '<retInutTest/>' };
  };
}

let dir: string;
let db: Db;
let close: () => Promise<void>;
let clock: ManualClock;
let authority: ScriptedAuthority;
let worker: OutboxWorker;
let asked: { companyId: string; kind: string }[];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-worker-'));
  const opened = openDatabase(path.join(dir, 'db.sqlite'));
  db = opened.db;
  close = opened.close;
  await migrateToLatest(db);
  // The worker reads documents and queue rows only: no company row is needed behind them.
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  clock = new ManualClock('2026-11-24T13:00:00.000Z');
  authority = new ScriptedAuthority();
  asked = [];
  worker = new OutboxWorker(
    {
      db,
      clock,
      logger: createLogger('error', () => undefined),
      authorityFor: (companyId, kind) => {
        asked.push({ companyId, kind });
        return Promise.resolve(authority);
      },
      followUps: {
        substitution: () => Promise.reject(new Error('not expected')),
        voidNumber: () => Promise.reject(new Error('not expected')),
      },
      kinds,
      random: () => 0.5,
    },
    { baseBackoffMs: 1000, maxBackoffMs: 60_000 },
  );
});

afterEach(async () => {
  await worker.stop();
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function insertDocument(status: DocumentRow['status'] = 'processando'): Promise<DocumentRow> {
  const now = clock.now().toISOString();
  const row: DocumentRow = {
    id: 'doc-1',
    company_id: 'company-1',
    modelo: 57,
    serie: 1,
    n_nf: 1,
    ambiente: 'homologacao',
    tp_emis: 1,
    chave: CHAVE,
    status,
    payload_json: '{}',
    xml: '<signed/>',
    digest_value: 'x',
    v_nf: '10.00',
    dh_emi: now,
    qr_code: null,
    url_chave: null,
    c_stat: null,
    x_motivo: null,
    n_prot: null,
    authorized_at: null,
    prot_xml: null,
    proc_xml: null,
    replaced_by: null,
    replaces: null,
    created_at: now,
    updated_at: now,
  };
  await documentsRepository.insert(db, row);
  return row;
}

const queue = (
  kind: 'autorizacao' | 'evento' | 'inutilizacao',
  extra: { eventType?: string; singleNumber?: boolean } = {},
) =>
  outboxRepository.enqueueMessage(db, {
    documentId: 'doc-1',
    companyId: 'company-1',
    kind,
    docKind: 'cte',
    // An authorization references its document, as the lifecycle queues it.
    message: kind === 'autorizacao' ? AUTHORIZATION_MESSAGE : `<${kind}/>`,
    now: clock.now().toISOString(),
    ...extra,
  });

const doc = async () => (await documentsRepository.findById(db, 'doc-1')) as DocumentRow;
const row = async (id: number) => (await outboxRepository.findById(db, id))!;

describe('the worker settles through the kind', () => {
  it("authorizes on the kind's own code and builds the kind's proc; asks the kind's authority", async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('900') });
    await worker.process(id);
    const settled = await doc();
    expect(settled.status).toBe('autorizada');
    expect(settled.n_prot).toBe('157260000000001');
    expect(settled.proc_xml).toBe('<proc><signed/><protTest><cStat>900</cStat></protTest></proc>');
    // Sent: the document's own signed XML. Stored: the proc as its opening tag only (documents/stored-xml.ts).
    expect(authority.authorized).toEqual(['<signed/>']);
    expect(
      await db.selectFrom('documents').select(['proc_xml', 'proc_open']).where('id', '=', 'doc-1').execute(),
    ).toEqual([{ proc_xml: null, proc_open: '<proc>' }]);
    expect((await row(id)).state).toBe('done');
    expect(asked).toEqual([{ companyId: 'company-1', kind: 'cte' }]);
  });

  it("writes the key the authority assigns, and runs the kind's afterAuthorized in the settling transaction", async () => {
    await insertDocument();
    await documentsRepository.insert(db, {
      ...(await doc()),
      id: 'doc-old',
      n_nf: 0,
      chave: 'OLD',
      status: 'autorizada',
    });
    const assigned = '7'.repeat(50);
    const seen: string[] = [];
    const announced: string[] = [];
    const own: DocumentKind = {
      ...testKind,
      afterAuthorized: async (trx, settled) => {
        seen.push(`${settled.status} ${settled.chave}`);
        await documentsRepository.update(trx, 'doc-old', { status: 'substituida' });
        return ['doc-old'];
      },
    };
    const local = new OutboxWorker({
      db,
      clock,
      logger: createLogger('error', () => undefined),
      authorityFor: () => Promise.resolve(authority),
      followUps: {
        substitution: () => Promise.reject(new Error('not expected')),
        voidNumber: () => Promise.reject(new Error('not expected')),
      },
      onDocumentChanged: (changed) => announced.push(`${changed.id} ${changed.status}`),
      kinds: { byId: () => own, all: () => [own] },
    });
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({
      cStat: '960',
      xMotivo: 'processado',
      protocol: { ...protocol('900'), chave: assigned },
    });
    await local.process(id);
    expect((await doc()).chave).toBe(assigned);
    expect(seen).toEqual([`autorizada ${assigned}`]);
    expect((await documentsRepository.findById(db, 'doc-old'))?.status).toBe('substituida');
    for (let i = 0; i < 50 && announced.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(announced.sort()).toEqual(['doc-1 autorizada', 'doc-old substituida']);
    // A rejected answer runs no hook.
    seen.length = 0;
    await documentsRepository.update(db, 'doc-1', { status: 'processando', chave: CHAVE });
    const again = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('100') });
    await local.process(again);
    expect(seen).toEqual([]);
    expect((await doc()).chave).toBe(CHAVE);
  });

  it("an NF-e authorization code means nothing to this kind: '100' is a rejection", async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('100') });
    await worker.process(id);
    expect((await doc()).status).toBe('erro');
    expect((await doc()).c_stat).toBe('100');
    expect((await row(id)).state).toBe('failed');
  });

  it('a paused service keeps the row pending with a backoff; the next try settles it', async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '970', xMotivo: 'paralisado', protocol: null });
    await worker.process(id);
    const paused = await row(id);
    expect(paused.state).toBe('pending');
    expect(paused.last_c_stat).toBe('970');
    expect(paused.next_try_at > clock.now().toISOString()).toBe(true);
    expect((await doc()).status).toBe('processando');

    // Not due yet: nothing is sent.
    expect(await worker.tick()).toBe(0);
    clock.advance(60_000);
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('900') });
    expect(await worker.tick()).toBe(1);
    expect((await doc()).status).toBe('autorizada');
  });

  it('a send that may have arrived is consulted, never resent; the consultation settles it', async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push(new AuthorityUnavailable('socket closed after sending', true));
    await worker.process(id);
    expect((await row(id)).state).toBe('unknown');

    authority.consultAnswers.push({ cStat: '960', xMotivo: 'consultado', protocol: protocol('900') });
    clock.advance(60_000);
    await worker.tick();
    expect(authority.calls).toEqual(['authorize', 'consult']);
    expect((await doc()).status).toBe('autorizada');
  });

  it("only the kind's 'not found' answer makes a doubtful send safe to resend", async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push(new AuthorityUnavailable('timeout after sending', true));
    await worker.process(id);

    // '217' is the NF-e's "not found": to this kind it is an unknown answer, so nothing is resent.
    authority.consultAnswers.push({ cStat: '217', xMotivo: 'nao consta', protocol: null });
    clock.advance(60_000);
    await worker.tick();
    expect(authority.calls).toEqual(['authorize', 'consult']);
    expect((await row(id)).state).toBe('unknown');

    authority.consultAnswers.push({ cStat: '980', xMotivo: 'nao recebido', protocol: null });
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('900') });
    clock.advance(60_000);
    await worker.tick();
    expect(authority.calls).toEqual(['authorize', 'consult', 'consult', 'authorize']);
    expect((await doc()).status).toBe('autorizada');
  });

  it('a duplicate answer is looked up instead of failing the document', async () => {
    await insertDocument();
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('920') });
    await worker.process(id);
    expect((await row(id)).state).toBe('unknown');
    expect((await doc()).status).toBe('processando');
    authority.consultAnswers.push({ cStat: '960', xMotivo: 'consultado', protocol: protocol('900') });
    await worker.tick();
    expect((await doc()).status).toBe('autorizada');
  });

  it("an event changes the document's state only when the kind's rule for its type says so", async () => {
    await insertDocument('autorizada');
    const note = await queue('evento', { eventType: 'T-NOTE' });
    authority.eventAnswers.push({ cStat: '955', xMotivo: 'registrado' });
    await worker.process(note);
    expect((await row(note)).state).toBe('done');
    expect((await doc()).status).toBe('autorizada');

    const cancel = await queue('evento', { eventType: 'T-CANCEL' });
    // '135' registers an NF-e event; this kind does not know it: the event fails, the document stays.
    authority.eventAnswers.push({ cStat: '135', xMotivo: 'registrado?' });
    await worker.process(cancel);
    expect((await row(cancel)).state).toBe('failed');
    expect((await doc()).status).toBe('autorizada');

    const again = await queue('evento', { eventType: 'T-CANCEL' });
    authority.eventAnswers.push({ cStat: '955', xMotivo: 'registrado' });
    await worker.process(again);
    expect((await doc()).status).toBe('cancelada');
  });

  it('a row of a kind this build does not know waits with a backoff; the rows after it are still sent', async () => {
    await insertDocument();
    const stranger = await outboxRepository.enqueueMessage(db, {
      documentId: null,
      companyId: 'company-1',
      kind: 'evento',
      docKind: 'nfse',
      message: '<evento/>',
      now: clock.now().toISOString(),
    });
    const id = await queue('autorizacao');
    authority.authorizeAnswers.push({ cStat: '960', xMotivo: 'processado', protocol: protocol('900') });
    expect(await worker.tick()).toBe(2);
    expect((await doc()).status).toBe('autorizada');
    const waiting = await row(stranger);
    expect(waiting.state).toBe('pending');
    expect(waiting.last_error).toContain("no document kind 'nfse'");
    expect(waiting.next_try_at > clock.now().toISOString()).toBe(true);
    expect((await row(id)).state).toBe('done');
  });

  it("a void settles on the kind's code, and a single-number code only for a single-number row", async () => {
    await insertDocument('rascunho');
    const range = await queue('inutilizacao', { singleNumber: false });
    authority.voidAnswers.push({ cStat: '957', xMotivo: 'ja inutilizado' });
    await worker.process(range);
    expect((await row(range)).state).toBe('failed');
    expect((await doc()).status).toBe('rascunho');

    const single = await queue('inutilizacao', { singleNumber: true });
    authority.voidAnswers.push({ cStat: '957', xMotivo: 'ja inutilizado' });
    await worker.process(single);
    expect((await row(single)).state).toBe('done');
    expect((await doc()).status).toBe('inutilizada');
  });
});
