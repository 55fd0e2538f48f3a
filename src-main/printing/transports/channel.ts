// What every printer connection offers (write bytes, read the printer's answers) and the transport built on
// it: status (DLE EOT 1, 2, 4), write, and print = status check then write on the same connection.
import type { PrintProblem } from '../../../src-shared/contracts/printers.ts';
import {
  isStatusByte,
  parseStatusBytes,
  problemOf,
  statusQuery,
  unreachableStatus,
  unreportedStatus,
  type PrinterStatus,
} from '../status.ts';

/** A print attempt that did not print, with the reason kept in the job's lastError. */
export class PrintError extends Error {
  constructor(
    readonly problem: PrintProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PrintError';
  }
}

/** One open connection to a printer. */
export interface Channel {
  /** Resolves once the bytes left this machine (socket flushed, serial drained, USB transfer done). */
  write(bytes: Uint8Array): Promise<void>;
  /** The next `length` bytes the printer sent, or null when they did not come within `timeoutMs`. */
  read(length: number, timeoutMs: number): Promise<Uint8Array | null>;
  /** Lets queued bytes go out, then releases the connection; never throws. */
  close(): Promise<void>;
}

export interface PrinterTransport {
  /** Human description for logs and errors ("192.168.0.50:9100", "USB 0416:5011", "COM3"). */
  readonly target: string;
  /** Live status; an unreachable printer is reported offline, never thrown. */
  status(): Promise<PrinterStatus>;
  /** Sends bytes without asking for status first. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Asks for status, then sends the bytes on the same connection when the printer can print. Throws a
   * PrintError (paper_out, cover_open, offline, timeout...) when nothing was printed.
   */
  print(bytes: Uint8Array): Promise<PrinterStatus>;
}

export interface ChannelTimeouts {
  /** How long each DLE EOT answer may take. */
  statusMs: number;
}

/** Buffers what a printer sends so status answers can be read in order with a deadline. */
export class IncomingBytes {
  private buffer: number[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  push(chunk: Uint8Array): void {
    for (const b of chunk) this.buffer.push(b);
    this.waiter?.();
  }

  end(): void {
    this.closed = true;
    this.waiter?.();
  }

  async read(length: number, timeoutMs: number): Promise<Uint8Array | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffer.length < length) {
      const left = deadline - Date.now();
      if (this.closed || left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    return Uint8Array.from(this.buffer.splice(0, length));
  }
}

/** DLE EOT 1, 2 and 4 on an open channel; a silent printer is "reached, status not reported". */
export async function queryStatus(channel: Channel, timeouts: ChannelTimeouts): Promise<PrinterStatus> {
  const answers: number[] = [];
  for (const n of [1, 2, 4] as const) {
    await channel.write(statusQuery(n));
    const answer = await channel.read(1, timeouts.statusMs);
    const byte = answer?.[0];
    if (byte === undefined) {
      if (answers.length === 0) return unreportedStatus('the printer did not answer the status query');
      break;
    }
    if (!isStatusByte(byte)) {
      return unreportedStatus(`the answer 0x${byte.toString(16).padStart(2, '0')} is not an ESC/POS status`);
    }
    answers.push(byte);
  }
  // A printer that answered n=1 but not the rest tells nothing about them: 0x12 is "no flag set".
  const [printer = 0x12, offline = 0x12, paper = 0x12] = answers;
  return parseStatusBytes({ printer, offline, paper });
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A transport over channels opened on demand: one connection per status check or print. */
export class ChannelTransport implements PrinterTransport {
  constructor(
    readonly target: string,
    private readonly open: () => Promise<Channel>,
    private readonly timeouts: ChannelTimeouts,
  ) {}

  async status(): Promise<PrinterStatus> {
    let channel: Channel;
    try {
      channel = await this.open();
    } catch (error) {
      const cause =
        error instanceof PrintError && error.problem === 'device_not_found' ? error.problem : 'offline';
      return unreachableStatus(describe(error), cause);
    }
    try {
      return await queryStatus(channel, this.timeouts);
    } catch (error) {
      return unreachableStatus(describe(error));
    } finally {
      await channel.close();
    }
  }

  async write(bytes: Uint8Array): Promise<void> {
    const channel = await this.open();
    try {
      await channel.write(bytes);
    } finally {
      await channel.close();
    }
  }

  async print(bytes: Uint8Array): Promise<PrinterStatus> {
    const channel = await this.open();
    try {
      const status = await queryStatus(channel, this.timeouts);
      const problem = problemOf(status);
      if (problem !== null) throw new PrintError(problem, `${this.target}: ${problem.replace('_', ' ')}`);
      await channel.write(bytes);
      return status;
    } finally {
      await channel.close();
    }
  }
}

/** Rejects with a timeout PrintError when `work` takes longer than `ms`; `onTimeout` cleans up. */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  onTimeout?: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout?.();
      reject(new PrintError('timeout', `${what} took more than ${ms} ms`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
