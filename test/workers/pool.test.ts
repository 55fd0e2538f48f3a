// The worker pool: workers start from a .ts entry (tsx's loader registered in the thread), start lazily up to
// the pool's size, move buffers, rebuild a task's error, and replace a crashed worker failing only its task.
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerCrashed, WorkerPool, WorkerTaskFailed, defaultPoolSize } from '../../src-main/workers/pool.ts';

const pool = new WorkerPool(new URL('./test-worker.ts', import.meta.url), 2);
afterAll(() => pool.close());

describe('worker pool', () => {
  it('is sized from the cores, leaving one to the request thread, at least one', () => {
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(1);
  });

  it('starts workers on the first task only, never more than its size', async () => {
    expect(pool.started).toBe(0);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => pool.run<{ n: number; thread: string }>('echo', { n })),
    );
    expect(answers.map((a) => a.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(answers.every((a) => a.thread === 'worker')).toBe(true);
    expect(pool.started).toBeGreaterThanOrEqual(1);
    expect(pool.started).toBeLessThanOrEqual(2);
  });

  it('moves a buffer back', async () => {
    const bytes = await pool.run<Uint8Array>('bytes', { length: 100_000 });
    expect(bytes.byteLength).toBe(100_000);
    expect(bytes[99_999]).toBe(7);
  });

  it("rejects with the task's error, and the worker goes on", async () => {
    const failure = await pool.run('fail', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkerTaskFailed);
    expect(failure).toMatchObject({ name: 'RangeError', message: 'no such paper width' });
    expect(await pool.run('echo', { n: 1 })).toEqual({ n: 1, thread: 'worker' });
  });

  it('a crashed worker fails only its task and is replaced; the tasks queued behind it run', async () => {
    const crashing = pool.run('crash', {});
    const others = [pool.run<number>('slow', { ms: 20 }), pool.run<number>('slow', { ms: 30 })];
    const behind = Array.from({ length: 4 }, (_, n) => pool.run<{ n: number }>('echo', { n }));
    await expect(crashing).rejects.toBeInstanceOf(WorkerCrashed);
    expect(await Promise.all(others)).toEqual([20, 30]);
    expect((await Promise.all(behind)).map((a) => a.n)).toEqual([0, 1, 2, 3]);
    expect(pool.started).toBeLessThanOrEqual(2);
  });

  it('stops a worker left idle, and starts one again for the next task', async () => {
    const brief = new WorkerPool(new URL('./test-worker.ts', import.meta.url), 1, 50);
    try {
      expect(await brief.run('echo', { n: 1 })).toEqual({ n: 1, thread: 'worker' });
      expect(brief.started).toBe(1);
      await expect.poll(() => brief.started, { timeout: 10_000 }).toBe(0);
      expect(await brief.run('echo', { n: 2 })).toEqual({ n: 2, thread: 'worker' });
    } finally {
      await brief.close();
    }
  });

  it('an unknown task is an error, not a hang', async () => {
    await expect(pool.run('nope', {})).rejects.toThrow('no task "nope"');
  });
});
