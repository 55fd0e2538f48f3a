// Issue 16: NFS-e under the reliability chaos. A service provider's terminal issues NFS-e through POST /v1/nfse
// while the sandbox's national environment randomly resets connections, times out, answers slowly, answers
// 503 and loses answers after it made the note; for a while it is offline altogether; the process is killed
// (SIGKILL) and restarted. Afterwards every DPS became exactly one NFS-e at the national environment (asked by
// DPS Id), our DPS numbers run 1..N without a gap or a repeat, every note is authorized here with the key,
// number and XML the national environment gave it, the cancellations asked in between are registered once
// each, and no DPS was sent again without first being consulted when its previous send may have arrived.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { NFSE_SANDBOX_SERVICES } from '../../src-main/sandbox/faults.ts';
import { openDatabase } from '../../src-main/db/client.ts';
import { NFSE_MODELO } from '../../src-main/documents/kinds/nfse/kind.ts';
import type { NumberVoidsTable } from '../../src-main/documents/inutilizar.ts';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import { authorityWithTerminalCompany, driverEnv, runDriver, runWithKills } from './chaos.ts';
import { withProc } from '../../src-main/documents/stored-xml.ts';

const NOTES = Number(process.env['RELIABILITY_NFSE'] ?? 40);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-nfse-reliability-'));
const dataDir = path.join(root, 'terminal');
const DRIVER = 'test/reliability/nfse-driver.ts';
let sandbox: SandboxAuthority | undefined;

afterAll(async () => {
  await sandbox?.close();
});

/** The national environment's REST APIs fail at random (seeded); the SOAP services are not involved. */
function nfseChaos(authority: SandboxAuthority, seed: number): void {
  authority.faults.random({
    seed,
    refuse: 0.06,
    timeout: 0.08,
    slow: 0.08,
    pause: 0.05,
    lose: 0.1,
    slowMs: 250,
    services: NFSE_SANDBOX_SERVICES,
  });
}

interface LoggedRequest {
  tag: string;
  op: string;
  ref: string;
  events: string[];
}

/** The driver's log of requests to the national environment, one entry per request in the order they began. */
function requestsOf(file: string): LoggedRequest[] {
  const byTag = new Map<string, LoggedRequest>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [tag, op, ref, event] = line.split(' ');
    if (tag === undefined || op === undefined || ref === undefined || event === undefined) continue;
    let entry = byTag.get(tag);
    if (entry === undefined) {
      entry = { tag, op, ref, events: [] };
      byTag.set(tag, entry);
    }
    // The DPS Id of a send is read from its body when it starts.
    if (event === 'start') entry.ref = ref;
    entry.events.push(event);
  }
  return [...byTag.values()];
}

describe('NFS-e reliability under faults, an offline period and kills', () => {
  it(`issues ${NOTES} NFS-e through POST /v1/nfse: one note per DPS, no gap, all authorized (some then cancelled)`, async () => {
    sandbox = await authorityWithTerminalCompany(root, dataDir);
    const half = Math.floor(NOTES / 2);

    // 1. Random faults and kills for the first half.
    nfseChaos(sandbox, 20261124);
    const first = await runWithKills(DRIVER, driverEnv(dataDir, sandbox, half), {
      maxKills: 3,
      minKillMs: 400,
    });
    expect(first.last.code, first.last.out.slice(-2000)).toBe(0);

    // 2. The national environment offline for a while: requests are answered 202 and wait in the queue.
    const offlineMs = 8_000;
    await sandbox.faults.setOnline(false, { forMs: offlineMs });
    const offline = await runDriver(DRIVER, driverEnv(dataDir, sandbox, Math.min(half + 6, NOTES)), null);
    expect(offline.code, offline.out.slice(-2000)).toBe(0);
    await sandbox.faults.setOnline(true);

    // 3. Faults and kills again up to the total, then the queue under the same faults, killed once more.
    nfseChaos(sandbox, 16);
    const env = driverEnv(dataDir, sandbox, NOTES);
    const second = await runWithKills(DRIVER, env, { maxKills: 3, minKillMs: 400 });
    expect(second.last.code, second.last.out.slice(-2000)).toBe(0);
    const chaosDrain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, 1500);
    const kills = first.kills + second.kills + (chaosDrain.killed ? 1 : 0);
    // Each runWithKills phase ran `runs` killed runs and a last one; then the offline run and the two drains.
    const runs = first.runs + 1 + 1 + second.runs + 1 + 1 + 1;

    // 4. The faults cleared, the queue empties.
    sandbox.faults.clear();
    // Bounded, so a queue that never empties (a DPS resent blind forever meets E106 forever) fails on the
    // assertions below, with the figures printed, instead of running into the test's timeout.
    const drain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, 90_000);

    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    // Each authorized copy whole, as the repository reads it (stored as its protocol, rebuilt on read).
    const notes = (
      await db.selectFrom('documents').selectAll().where('modelo', '=', NFSE_MODELO).orderBy('n_nf').execute()
    ).map((row) => withProc(row));
    const voids = await db
      .withTables<{ number_voids: NumberVoidsTable }>()
      .selectFrom('number_voids')
      .select(['n_ini', 'n_fin'])
      .where('modelo', '=', NFSE_MODELO)
      .execute();
    const open = await db
      .selectFrom('outbox')
      .select(['kind', 'doc_kind', 'state'])
      .where('state', 'in', ['pending', 'unknown', 'in_flight'])
      .execute();
    const failed = await db
      .selectFrom('outbox')
      .select(['kind', 'last_c_stat', 'last_error'])
      .where('state', '=', 'failed')
      .where('doc_kind', '=', 'nfse')
      .execute();
    const cancellations = await db
      .withTables<{ document_events: { document_id: string; tp_evento: string; status: string } }>()
      .selectFrom('document_events')
      .select(['document_id', 'status'])
      .where('tp_evento', '=', '101101')
      .execute();
    await close();

    const atNational = await sandbox.nfse.notes();
    const exchanges = (await sandbox.registry.exchanges()).filter((e) =>
      (NFSE_SANDBOX_SERVICES as readonly string[]).includes(e.service),
    );
    const requests = requestsOf(path.join(dataDir, 'nfse-requests.log'));
    const answers = fs
      .readFileSync(path.join(dataDir, 'nfse-answers.log'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' '));

    // No DPS sent again blind: a resend follows a consultation by its DPS Id, unless the previous send never
    // had a connection to travel on (refused while offline), so it certainly never arrived.
    const blind: string[] = [];
    const lastSend = new Map<string, LoggedRequest>();
    const consultedSince = new Set<string>();
    let resends = 0;
    let resendsAfterConsult = 0;
    for (const r of requests) {
      if (r.op === 'consult-dps') consultedSince.add(r.ref);
      if (r.op !== 'send') continue;
      const previous = lastSend.get(r.ref);
      if (previous !== undefined) {
        resends++;
        if (consultedSince.has(r.ref)) resendsAfterConsult++;
        else if (previous.events.includes('connected')) blind.push(r.ref);
      }
      lastSend.set(r.ref, r);
      consultedSince.delete(r.ref);
    }

    const count = <T>(items: T[], key: (t: T) => string) => {
      const out: Record<string, number> = {};
      for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
      return out;
    };
    const consults = requests.filter((r) => r.op === 'consult-dps');
    console.log(
      JSON.stringify(
        {
          notes: notes.length,
          kills,
          runs,
          answers: count(answers, (a) => `${a[0]} ${a[2]}`),
          notesAtNational: atNational.length,
          cancellations: cancellations.length,
          requests: count(requests, (r) => r.op),
          sendsOfADpsAlreadySent: resends,
          ofWhichAfterAConsult: resendsAfterConsult,
          refusedWhileOffline: requests.filter((r) => r.events.includes('error-ECONNREFUSED')).length,
          consultsByDpsId: count(
            consults,
            (r) => r.events.find((e) => e !== 'start' && e !== 'connected') ?? 'cut by a kill',
          ),
          duplicatesE106: exchanges.filter((e) => e.cStat === NFSE_CODES.dpsDuplicada.code).length,
          faultsAtNational: count(
            exchanges.filter((e) => e.outcome !== 'answered' || e.cStat === '503'),
            (e) => `${e.service} ${e.outcome === 'answered' ? 'paused-503' : e.outcome}`,
          ),
          offlineMs,
        },
        null,
        1,
      ),
    );

    expect(drain.killed, `the queue did not empty in 90 s: ${drain.out.slice(-300)}`).toBe(false);
    expect(drain.code, drain.out.slice(-2000)).toBe(0);
    // Nothing lost, nothing numbered twice: DPS 1..N, no void, nothing left in the queue.
    expect(notes.map((d) => d.n_nf)).toEqual(notes.map((_, i) => i + 1));
    expect(notes.length).toBe(NOTES);
    expect(voids).toEqual([]);
    expect(open).toEqual([]);
    expect(failed).toEqual([]);
    // Some requests were answered in real time, some queued (202) and settled later.
    expect(answers.some((a) => a[0] === 'new' && a[2] === '200')).toBe(true);
    expect(answers.some((a) => a[0] === 'new' && a[2] === '202')).toBe(true);
    // Each DPS became exactly one note at the national environment, and it is the one we keep.
    const dpsIds = notes.map((d) => /<infDPS[^>]*\sId="(DPS\d{42})"/.exec(d.xml)?.[1]);
    expect(new Set(dpsIds).size).toBe(NOTES);
    expect(atNational).toHaveLength(NOTES);
    expect(new Set(atNational.map((n) => n.id_dps))).toEqual(new Set(dpsIds));
    // The cancellations asked went through the same chaos: each registered once there, the note cancelled here.
    const cancelled = new Set(cancellations.map((c) => c.document_id));
    expect(cancelled.size).toBe(cancellations.length);
    expect(cancelled.size).toBeGreaterThan(0);
    for (const asked of answers.filter((a) => a[0] === 'cancel'))
      expect(cancelled.has(asked[1] ?? '')).toBe(true);
    for (const [i, d] of notes.entries()) {
      const expected = cancelled.has(d.id) ? 'cancelada' : 'autorizada';
      expect(d.status, `DPS ${d.n_nf}: ${d.c_stat ?? ''} ${d.x_motivo ?? ''}`).toBe(expected);
      const national = atNational.filter((n) => n.id_dps === dpsIds[i]);
      expect(national[0]?.status, `DPS ${d.n_nf} at the national environment`).toBe(expected);
      if (expected === 'cancelada') {
        const events = await sandbox.nfse.events(d.chave);
        expect(events.map((e) => e.tipo_evento.replace(/^e/, ''))).toEqual(['101101']);
      }
      expect(national, `DPS ${d.n_nf} at the national environment`).toHaveLength(1);
      expect(d.chave).toBe(national[0]?.chave);
      expect(d.chave).toMatch(/^\d{50}$/);
      expect(d.n_prot).toBe(national[0]?.n_dfse);
      expect(d.proc_xml).toBe(national[0]?.xml);
    }
    // Never sent twice blind.
    expect(blind).toEqual([]);
  }, 600_000);
});
