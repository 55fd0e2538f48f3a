// ESC/POS real-time status (DLE EOT n) as the printer answers it, turned into what a cashier understands
// and into the reason a print attempt is put back in the queue.
import type { PrintProblem } from '../../src-shared/contracts/printers.ts';

export const DLE_EOT = 0x10;
/** Epson ESC/POS "DLE EOT n": 1 printer status, 2 offline cause, 3 error cause, 4 roll paper sensor. */
export const STATUS_QUERIES = [1, 2, 4] as const;
export type StatusQuery = (typeof STATUS_QUERIES)[number];

export function statusQuery(n: StatusQuery): Uint8Array {
  return Uint8Array.of(0x10, 0x04, n);
}

/**
 * Every answer byte has the fixed pattern 0xx1xx10 (bits 0, 1, 4 and 7), which tells a real status byte
 * from stray data (e.g. a printer that echoes, or a non-ESC/POS device on the port).
 */
export function isStatusByte(byte: number): boolean {
  return (byte & 0x93) === 0x12;
}

export interface PrinterStatus {
  /** False when the printer could not be reached (connection refused, no device, no answer to open). */
  reachable: boolean;
  online: boolean;
  coverOpen: boolean;
  paperNearEnd: boolean;
  paperOut: boolean;
  error: boolean;
  /** False when the printer was reached but did not answer DLE EOT (then the flags are guesses). */
  statusReported: boolean;
  /** Why it could not be reached (`offline`, `device_not_found`); null when it was. */
  unreachable: 'offline' | 'device_not_found' | null;
  detail: string | null;
}

export interface StatusBytes {
  /** DLE EOT 1 (printer), 2 (offline cause), 4 (roll paper sensor). */
  printer: number;
  offline: number;
  paper: number;
}

/**
 * Bits as the Epson ESC/POS reference defines them (followed by Elgin, Bematech, Daruma, Tanca, Sweda):
 * n=1 bit 3 offline; n=2 bit 2 cover open, bit 5 stopped by paper end, bit 6 error;
 * n=4 bits 2–3 roll paper near end, bits 5–6 roll paper end.
 */
export function parseStatusBytes({ printer, offline, paper }: StatusBytes): PrinterStatus {
  const paperOut = (paper & 0x60) !== 0 || (offline & 0x20) !== 0;
  return {
    reachable: true,
    online: (printer & 0x08) === 0,
    coverOpen: (offline & 0x04) !== 0,
    paperNearEnd: (paper & 0x0c) !== 0,
    paperOut,
    error: (offline & 0x40) !== 0,
    statusReported: true,
    unreachable: null,
    detail: null,
  };
}

export function unreachableStatus(
  detail: string,
  cause: 'offline' | 'device_not_found' = 'offline',
): PrinterStatus {
  return {
    reachable: false,
    online: false,
    coverOpen: false,
    paperNearEnd: false,
    paperOut: false,
    error: false,
    statusReported: false,
    unreachable: cause,
    detail,
  };
}

/** Reached, but silent to DLE EOT: assumed ready (many printers only answer on some interfaces). */
export function unreportedStatus(detail: string): PrinterStatus {
  return { ...unreachableStatus(detail), reachable: true, online: true, unreachable: null };
}

/**
 * Why the printer cannot print now, most specific first: an empty roll or open cover also puts the printer
 * offline (n=1 bit 3), and the operator needs to know which to fix.
 */
export function problemOf(status: PrinterStatus): PrintProblem | null {
  if (!status.reachable) return status.unreachable ?? 'offline';
  if (status.paperOut) return 'paper_out';
  if (status.coverOpen) return 'cover_open';
  if (status.error) return 'printer_error';
  if (!status.online) return 'offline';
  return null;
}
