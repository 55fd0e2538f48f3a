// Issue 15 item 8: CT-e in the reliability mix. A carrier's terminal issues CT-e (with NFC-e sales in
// between) while the sandbox authority randomly refuses, times out, pauses and loses answers, and the
// process is killed (SIGKILL) and restarted; some get a CC-e under the same chaos. Afterwards no CT-e is lost,
// every one is authorized exactly once at the authority (one protocol per number and key), every CC-e is
// registered once, and the local rows agree with the authority's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { openDatabase } from '../../src-main/db/client.ts';
import { authorityWithTerminalCompany, driverEnv, injectChaos, runDriver, runWithKills } from './chaos.ts';
import { refreshEvents } from '../../src-main/documents/events-service.ts';
import { withProc } from '../../src-main/documents/stored-xml.ts';

const CTES = Number(process.env['RELIABILITY_CTES'] ?? 60);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-cte-reliability-'));
const dataDir = path.join(root, 'terminal');
const DRIVER = 'test/reliability/cte-driver.ts';
let sandbox: SandboxAuthority | undefined;

afterAll(async () => {
  await sandbox?.close();
});

describe('CT-e reliability under faults and kills', () => {
  it(`issues ${CTES} CT-e through chaos: none lost, none authorized twice`, async () => {
    sandbox = await authorityWithTerminalCompany(root, dataDir);
    injectChaos(sandbox, 20261124);
    const env = driverEnv(dataDir, sandbox, CTES);
    const chaos = await runWithKills(DRIVER, env, { maxKills: 4, minKillMs: 400 });
    let kills = chaos.kills;
    const { runs, last } = chaos;
    expect(last.code, last.out.slice(-2000)).toBe(0);
    // The queue keeps working through the same chaos and is killed once more while it does.
    const chaosDrain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, 1500);
    if (chaosDrain.killed) kills++;

    sandbox.faults.clear();
    const drain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, null);
    expect(drain.code, drain.out.slice(-2000)).toBe(0);

    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    // Each authorized copy whole, as the repository reads it (stored as its protocol, rebuilt on read).
    const ctes = (
      await db.selectFrom('documents').selectAll().where('modelo', '=', 57).orderBy('n_nf').execute()
    ).map((row) => withProc(row));
    const nfce = await db.selectFrom('documents').select('status').where('modelo', '=', 65).execute();
    const open = await db
      .selectFrom('outbox')
      .select(['kind', 'doc_kind', 'state'])
      .where('state', 'in', ['pending', 'unknown', 'in_flight'])
      .execute();
    const failed = await db
      .selectFrom('outbox')
      .select(['kind', 'doc_kind', 'last_c_stat', 'last_error'])
      .where('state', '=', 'failed')
      .where('doc_kind', '=', 'cte')
      .execute();
    // Event rows take the queue's outcome when read (as GET /v1/cte/:id does).
    for (const d of ctes) await refreshEvents(db, d.id);
    const letters = await db
      .withTables<{
        document_events: { document_id: string; tp_evento: string; n_seq: number; status: string };
      }>()
      .selectFrom('document_events')
      .innerJoin('documents', 'documents.id', 'document_events.document_id')
      .select(['documents.chave', 'document_events.n_seq', 'document_events.status'])
      .where('document_events.tp_evento', '=', '110110')
      .execute();
    await close();

    const atAuthority = await sandbox.registry.ctes();
    const byNumber = new Map<number, number>();
    for (const c of atAuthority) byNumber.set(c.nCT, (byNumber.get(c.nCT) ?? 0) + 1);
    const twice = [...byNumber].filter(([, n]) => n > 1).map(([nCT]) => nCT);
    const exchanges = await sandbox.registry.exchanges();
    const outcomes: Record<string, number> = {};
    for (const e of exchanges.filter((x) => x.service.startsWith('CTe')))
      outcomes[`${e.service} ${e.outcome}`] = (outcomes[`${e.service} ${e.outcome}`] ?? 0) + 1;
    const byStatus: Record<string, number> = {};
    for (const d of ctes) byStatus[d.status] = (byStatus[d.status] ?? 0) + 1;
    console.log(
      JSON.stringify(
        {
          ctes: ctes.length,
          byStatus,
          cce: letters.length,
          nfce: nfce.length,
          kills,
          runs: runs + 1,
          authorityCtes: atAuthority.length,
          exchanges: outcomes,
        },
        null,
        1,
      ),
    );

    // Nothing lost: every CT-e the terminal issued exists, numbered 1..N without a gap, none left in a queue.
    expect(ctes.map((d) => d.n_nf)).toEqual(ctes.map((_, i) => i + 1));
    expect(ctes.length).toBe(CTES);
    expect(open).toEqual([]);
    expect(failed).toEqual([]);
    // Nothing authorized twice: one authority record per number, and it is the local one.
    expect(twice).toEqual([]);
    expect(atAuthority).toHaveLength(CTES);
    for (const d of ctes) {
      expect(d.status, `CT-e ${d.n_nf}: ${d.c_stat ?? ''} ${d.x_motivo ?? ''}`).toBe('autorizada');
      const record = atAuthority.find((c) => c.chave === d.chave);
      expect(record?.status, `CT-e ${d.n_nf} at the authority`).toBe('autorizada');
      expect(record?.nProt).toBe(d.n_prot);
      expect(d.proc_xml).toContain(`<nProt>${d.n_prot ?? ''}</nProt>`);
    }
    // The CC-e went through the same chaos: each registered, once, at the authority.
    expect(letters.length).toBeGreaterThan(0);
    const authorityEvents = await sandbox.registry.cteEvents();
    for (const letter of letters) {
      expect(letter.status, `CC-e of ${letter.chave}`).toBe('registrada');
      const registered = authorityEvents.filter(
        (e) => e.chave === letter.chave && e.tpEvento === '110110' && e.nSeqEvento === letter.n_seq,
      );
      expect(registered, `CC-e ${letter.n_seq} of ${letter.chave} at the authority`).toHaveLength(1);
    }
  }, 600_000);
});
