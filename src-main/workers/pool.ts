// A small pool of worker threads that takes CPU work (PDF renders) off the request thread. Workers start on the
// first task, one task each at a time; a worker that dies is replaced and only its task fails (WorkerCrashed).
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type Transferable } from 'node:worker_threads';

/** The task's worker died (a crash, an out-of-memory, terminate()) before it answered. */
export class WorkerCrashed extends Error {
  constructor(task: string, cause: string) {
    super(`the worker running "${task}" stopped: ${cause}`);
    this.name = 'WorkerCrashed';
  }
}

/** A task that threw in the worker: its error's name and message, rebuilt on this side. */
export class WorkerTaskFailed extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** What a worker answers (serve.ts writes it). */
export type WorkerAnswer =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

interface Job {
  id: number;
  task: string;
  input: unknown;
  transfer: readonly Transferable[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  /** Ends the worker once it has been idle for the pool's idleMs. */
  idle: NodeJS.Timeout | null;
}

/** All cores but the one the request thread keeps, at least one. */
export function defaultPoolSize(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/**
 * How a worker is started from `entry`: built JS runs as it is; a .ts entry (npm start under tsx, the tests)
 * first registers tsx's ESM loader in the new thread, which a worker does not get from its parent's hooks.
 */
function startWorker(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  // require.resolve finds the API's CommonJS build; its ESM twin sits beside it.
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  /**
   * `idleMs`: a worker idle that long is stopped (the next task starts one again): each holds ~30 MB (its own
   * heap and modules), which a service that rendered one PDF an hour ago should not keep.
   */
  constructor(
    private readonly entry: URL,
    readonly size: number = defaultPoolSize(),
    private readonly idleMs = 30_000,
  ) {}

  /** Runs `task` on a free worker; `transfer` lists the input's buffers to move instead of copy. */
  run<T>(task: string, input: unknown, transfer: readonly Transferable[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        task,
        input,
        transfer,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.dispatch();
    });
  }

  /** Workers running now (started lazily, replaced after a crash). */
  get started(): number {
    return this.slots.length;
  }

  /** Stops every worker; tasks still queued or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the worker pool is closed'));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (slot === undefined) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const job = this.queue.shift() as Job;
      if (slot.idle !== null) clearTimeout(slot.idle);
      slot.idle = null;
      slot.job = job;
      // A busy worker keeps the process alive (its answer is awaited); an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, task: job.task, input: job.input }, [...job.transfer]);
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.entry), job: null, idle: null };
    slot.worker.unref();
    slot.worker.on('message', (answer: WorkerAnswer) => {
      const job = slot.job;
      if (job === null || job.id !== answer.id) return;
      slot.job = null;
      slot.worker.unref();
      slot.idle = setTimeout(() => void slot.worker.terminate(), this.idleMs);
      slot.idle.unref();
      if (answer.ok) job.resolve(answer.value);
      else job.reject(new WorkerTaskFailed(answer.error.name, answer.error.message));
      this.dispatch();
    });
    const lost = (cause: string) => {
      const at = this.slots.indexOf(slot);
      if (at === -1) return;
      this.slots.splice(at, 1);
      if (slot.idle !== null) clearTimeout(slot.idle);
      const job = slot.job;
      slot.job = null;
      job?.reject(new WorkerCrashed(job.task, cause));
      // The queue's next tasks get a fresh worker.
      if (!this.closed) this.dispatch();
    };
    slot.worker.on('error', (error: Error) => {
      lost(error.message);
      void slot.worker.terminate();
    });
    slot.worker.on('exit', (code) => lost(`exit code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}

/** The URL of a worker entry beside `base` (the caller's import.meta.url), with the caller's own extension. */
export function entryBeside(base: string, name: string): URL {
  const ext = path.extname(fileURLToPath(base));
  return new URL(`./${name}${ext}`, base);
}
