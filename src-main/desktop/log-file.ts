// The desktop app's log: the service's JSON lines appended to a file in the user data folder, rotated by size
// so a till that runs for years keeps a bounded history (the newest files are the ones support asks for).
import fs from 'node:fs';
import path from 'node:path';
import { createLogger, type LogLevel, type Logger } from '../logger.ts';

export interface RotatingLogOptions {
  file: string;
  /** Size at which the current file is rotated; default 5 MiB. */
  maxBytes?: number;
  /** Rotated files kept beside the current one (`balcao.log.1` newest ... `.N` oldest); default 5. */
  keep?: number;
}

export class RotatingLogFile {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private fd: number | null;
  private size: number;

  constructor(options: RotatingLogOptions) {
    this.file = options.file;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 5;
    if (!(this.maxBytes > 0) || !Number.isInteger(this.keep) || this.keep < 1) {
      throw new RangeError('maxBytes must be > 0 and keep an integer >= 1');
    }
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Synchronous appends: the line that explains a crash is on disk before the crash.
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  write(line: string): void {
    if (this.fd === null) return;
    const bytes = Buffer.from(line, 'utf8');
    if (this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    fs.writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  /** `balcao.log` → `.1`, `.1` → `.2` ... and the oldest beyond `keep` is deleted. */
  private rotate(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    fs.rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = `${this.file}.${i}`;
      if (fs.existsSync(from)) fs.renameSync(from, `${this.file}.${i + 1}`);
    }
    fs.renameSync(this.file, `${this.file}.1`);
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = 0;
  }

  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * The project's logger writing to `log`; `echo` copies each line elsewhere too (stderr when started from a
 * terminal). A full disk must not stop a sale, so a failed write goes to `echo` or is dropped.
 */
export function fileLogger(level: LogLevel, log: RotatingLogFile, echo?: (line: string) => void): Logger {
  return createLogger(level, (line) => {
    try {
      log.write(line);
    } catch (error) {
      echo?.(`log file write failed: ${String(error)}\n`);
    }
    echo?.(line);
  });
}
