// A thermal printer on 127.0.0.1 for the printing tests: it answers ESC/POS real-time status queries
// (DLE EOT 1, 2, 4) from the status bytes it is given and keeps the data of every connection as one job.
import net, { type AddressInfo } from 'node:net';

/** Status answers: each byte carries the fixed bits 0xx1xx10 of the Epson ESC/POS reference. */
export const STATUS = {
  ready: { printer: 0x12, offline: 0x12, paper: 0x12 },
  paperNearEnd: { printer: 0x12, offline: 0x12, paper: 0x1e },
  paperOut: { printer: 0x1a, offline: 0x32, paper: 0x72 },
  coverOpen: { printer: 0x1a, offline: 0x16, paper: 0x12 },
} as const;

export type StatusAnswer = { printer: number; offline: number; paper: number };

export class FakePrinter {
  status: StatusAnswer = STATUS.ready;
  /** Off: the printer takes data but never answers status queries (some network cards do that). */
  answersStatus = true;
  /** Data received on each connection, status queries left out; connections without data are not kept. */
  readonly jobs: Buffer[] = [];
  /** Every status query received (1, 2 or 4). */
  readonly queries: number[] = [];
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly waiters: Array<() => void> = [];

  constructor() {
    this.server = net.createServer((socket) => this.serve(socket));
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once `count` jobs were received (or rejects after `ms`). */
  async waitForJobs(count: number, ms = 10_000): Promise<Buffer[]> {
    const deadline = Date.now() + ms;
    while (this.jobs.length < count) {
      if (Date.now() > deadline) throw new Error(`printer got ${this.jobs.length} jobs, expected ${count}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.jobs;
  }

  private serve(socket: net.Socket): void {
    this.sockets.add(socket);
    let pending = Buffer.alloc(0);
    let data: Buffer[] = [];
    let printing = false;
    socket.on('data', (chunk: Buffer) => {
      if (printing) {
        data.push(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      // Real-time status queries come first, before any print data on the connection.
      while (pending.length > 0 && !printing) {
        if (pending[0] === 0x10) {
          if (pending.length < 3) return;
          if (pending[1] === 0x04) {
            const n = pending[2] ?? 0;
            this.queries.push(n);
            pending = pending.subarray(3);
            if (this.answersStatus) socket.write(Buffer.of(this.answer(n)));
            continue;
          }
        }
        printing = true;
        data.push(pending);
        pending = Buffer.alloc(0);
      }
    });
    socket.on('end', () => {
      const job = Buffer.concat(data);
      data = [];
      if (job.length > 0) {
        this.jobs.push(job);
        for (const wake of this.waiters.splice(0)) wake();
      }
      socket.end();
    });
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private answer(n: number): number {
    if (n === 1) return this.status.printer;
    if (n === 2) return this.status.offline;
    return this.status.paper;
  }
}

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` until it returns a value other than undefined. */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
