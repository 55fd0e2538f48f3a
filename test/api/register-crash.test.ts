// A crash mid-shift (issue 13 item 2): the service is SIGKILLed while the cashier keeps posting sangrias and
// suprimentos; after the restart the session is open and every movement that was answered 201 is there,
// whole, in order, and the one in flight is there entirely or not at all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/db/client.ts';
import {
  api,
  saleBody,
  spawnService,
  waitListening,
  type ServiceProcess,
} from '../reliability/service-process.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-register-crash-'));
const running: ServiceProcess[] = [];

afterAll(async () => {
  for (const s of running) {
    s.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

interface Movement {
  id: string;
  tipo: string;
  valor: number;
  motivo: string;
}
interface Session {
  id: string;
  status: string;
  fundo_troco: number;
  movimentos: Movement[];
}

describe('register session across a crash', () => {
  it('keeps the open session and every answered movement after SIGKILL and restart', async () => {
    const dataDir = path.join(root, 'till');
    const first = spawnService(dataDir);
    running.push(first);
    const info = await waitListening(first, dataDir);
    const signIn = await api<{ token: string }>(info, 'POST', '/operators/sign-in', {
      codigo: '2',
      pin: '3971',
      caixa: '4',
    });
    expect(signIn.status).toBe(200);
    const operator = { 'X-Operator-Token': signIn.body.token };
    const opened = await api<Session>(info, 'POST', '/register-sessions', { fundo_troco: '75.25' }, operator);
    expect(opened.status).toBe(201);
    const sessionId = opened.body.id;

    // Movements one after another; the process dies while the last ones are on their way.
    const answered: Movement[] = [];
    let killed = false;
    const poster = (async () => {
      for (let i = 1; i <= 200 && !killed; i++) {
        let res: { status: number; body: Movement };
        try {
          res = await api<Movement>(
            info,
            'POST',
            `/register-sessions/${sessionId}/movements`,
            {
              tipo: i % 3 === 0 ? 'sangria' : 'suprimento',
              valor: `${i}.${String(i % 100).padStart(2, '0')}`,
              motivo: `mov ${i}`,
            },
            operator,
          );
        } catch {
          return; // the connection died with the process
        }
        if (res.status === 429) {
          // Over the key's per-second budget: the same movement again once it refills.
          await new Promise((r) => setTimeout(r, 1000));
          i -= 1;
          continue;
        }
        if (res.status !== 201) throw new Error(`movement ${i} answered ${res.status}`);
        answered.push(res.body);
      }
    })();
    let posting = true;
    void poster.finally(() => (posting = false));
    while (answered.length < 15 && posting) await new Promise((r) => setTimeout(r, 5));
    expect(answered.length).toBeGreaterThanOrEqual(15);
    first.kill('SIGKILL');
    killed = true;
    await first.exited;
    await poster;

    const second = spawnService(dataDir);
    running.push(second);
    const after = await waitListening(second, dataDir);
    const current = await api<Session>(
      after,
      'GET',
      '/register-sessions/current?caixa=4',
      undefined,
      operator,
    );
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ id: sessionId, status: 'aberta', fundo_troco: 75.25 });
    const kept = current.body.movimentos;
    // Every answered movement, whole and in order; at most one more (in flight when the process died).
    expect(kept.slice(0, answered.length)).toEqual(answered.map((m) => ({ ...m })));
    expect(kept.length - answered.length).toBeLessThanOrEqual(1);
    kept.forEach((m, i) => expect(m.motivo).toBe(`mov ${i + 1}`));
    process.stdout.write(
      `register crash: ${answered.length} movements answered before SIGKILL, ${kept.length} kept after restart\n`,
    );

    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    try {
      const rows = await db
        .selectFrom('register_movements')
        .selectAll()
        .where('session_id', '=', sessionId)
        .execute();
      expect(rows).toHaveLength(kept.length);
    } finally {
      await close();
    }
    second.kill('SIGTERM');
    await second.exited;
  }, 180_000);

  it('a sale killed while it waits for the authority still belongs to its session after the restart', async () => {
    const dataDir = path.join(root, 'sale');
    const first = spawnService(dataDir);
    running.push(first);
    const info = await waitListening(first, dataDir);
    const signIn = await api<{ token: string }>(info, 'POST', '/operators/sign-in', {
      codigo: '1',
      pin: '4826',
      caixa: '2',
    });
    const operator = { 'X-Operator-Token': signIn.body.token };
    const opened = await api<Session>(info, 'POST', '/register-sessions', { fundo_troco: '20.00' }, operator);
    expect(opened.status).toBe(201);
    // The authority reads the note and never answers: the sale waits while the process dies.
    const faults = await api({ ...info, apiKey: info.organizationApiKey }, 'POST', '/sandbox/faults', {
      timeout: { services: ['NFeAutorizacao4'] },
    });
    expect(faults.status, JSON.stringify(faults.body)).toBe(200);
    const inFlight = api(info, 'POST', '/nfce/venda', saleBody(3), operator).catch((error: unknown) => error);

    const file = path.join(dataDir, 'balcao.sqlite');
    const { db, close } = openDatabase(file);
    let noteId: string;
    try {
      const started = Date.now();
      for (;;) {
        const note = await db.selectFrom('documents').select('id').executeTakeFirst();
        if (note !== undefined) {
          noteId = note.id;
          break;
        }
        if (Date.now() - started > 20_000) throw new Error(`no note was created:\n${first.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      first.kill('SIGKILL');
      await first.exited;
      expect(await inFlight).toBeInstanceOf(Error);
    } finally {
      await close();
    }

    const second = spawnService(dataDir);
    running.push(second);
    const after = await waitListening(second, dataDir);
    const { db: check, close: closeCheck } = openDatabase(file);
    try {
      const note = await check
        .selectFrom('documents')
        .select(['id', 'register_session_id'])
        .where('id', '=', noteId)
        .executeTakeFirstOrThrow();
      expect(note.register_session_id).toBe(opened.body.id);
    } finally {
      await closeCheck();
    }
    const report = await api<{ vendas: { quantidade: number; total: number } }>(
      after,
      'GET',
      `/register-sessions/${opened.body.id}/report`,
    );
    expect(report.body.vendas).toEqual({ quantidade: 1, total: 3.9 });
    second.kill('SIGTERM');
    await second.exited;
  }, 180_000);
});
