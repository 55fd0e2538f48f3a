// Issue 12 item 1: a sale sent with an Idempotency-Key, the service SIGKILLed while the authority holds the
// note, restarted; the retry with the same key and body gets the sale's note at once (no 15 s wait, no 409
// "still being processed"), and the sale has exactly one note.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/db/client.ts';
import { api, saleBody, spawnService, waitListening, type ServiceProcess } from './service-process.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-idem-crash-'));
const running: ServiceProcess[] = [];

afterAll(async () => {
  for (const s of running) {
    s.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

interface SaleView {
  id: string;
  status: string;
  numero: number;
  chave_acesso: string | null;
}

describe('Idempotency-Key across a crash', () => {
  it('a retry after SIGKILL and restart answers the sale note promptly, and only one note exists', async () => {
    const dataDir = path.join(root, 'till');
    const first = spawnService(dataDir);
    running.push(first);
    const info = await waitListening(first, dataDir);
    const org = { ...info, apiKey: info.organizationApiKey };
    // The authority reads the note and never answers: the sale is in flight when the process dies.
    const faults = await api(org, 'POST', '/sandbox/faults', {
      timeout: { services: ['NFeAutorizacao4'] },
    });
    expect(faults.status, JSON.stringify(faults.body)).toBe(200);

    const key = 'sale-crash-0001';
    const body = saleBody(7);
    const inFlight = api(info, 'POST', '/nfce/venda', body, { 'Idempotency-Key': key }).catch(
      (error: unknown) => error,
    );

    // Killed as soon as the note exists (well inside the sale's 3 s wait for the authority).
    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    try {
      const started = Date.now();
      for (;;) {
        const docs = await db.selectFrom('documents').select('id').execute();
        if (docs.length > 0) break;
        if (Date.now() - started > 20_000) throw new Error(`no note was created:\n${first.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      first.kill('SIGKILL');
      await first.exited;
      expect(await inFlight).toBeInstanceOf(Error);
      const keyRow = await db
        .withTables<{ idempotency_keys: { key: string; state: string; resource: string | null } }>()
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      // The key names the note it created, written in the note's own transaction.
      expect(keyRow.state).toBe('pending');
      expect(keyRow.resource).toMatch(/^document:/);
    } finally {
      await close();
    }

    const second = spawnService(dataDir);
    running.push(second);
    const after = await waitListening(second, dataDir);
    const t0 = performance.now();
    const retry = await api<SaleView>(after, 'POST', '/nfce/venda', body, { 'Idempotency-Key': key });
    const latencyMs = performance.now() - t0;
    process.stdout.write(
      `idempotent retry after crash answered ${retry.status} in ${latencyMs.toFixed(0)} ms\n`,
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(['autorizada', 'contingencia']).toContain(retry.body.status);
    // The sale's own bounded wait for the authority is 3 s; nothing waits on the dead request.
    expect(latencyMs).toBeLessThan(8_000);

    // A further retry replays the stored answer.
    const again = await api<SaleView>(after, 'POST', '/nfce/venda', body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);

    const { db: check, close: closeCheck } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    try {
      const docs = await check.selectFrom('documents').selectAll().execute();
      // One sale: one original note (a contingency re-issue would point back to it with `replaces`)...
      expect(docs.filter((d) => d.replaces === null)).toHaveLength(1);
      // ...and one valid note for it, the one the retry answered.
      const valid = docs.filter(
        (d) => (d.status === 'autorizada' || d.status === 'contingencia') && d.replaced_by === null,
      );
      expect(valid.map((d) => d.id)).toEqual([retry.body.id]);
    } finally {
      await closeCheck();
    }
    second.kill('SIGTERM');
    await second.exited;
  }, 180_000);
});
