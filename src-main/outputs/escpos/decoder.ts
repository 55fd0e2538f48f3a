// Reads an ESC/POS job back the way a printer would: text lines through the active code page with their
// justification, emphasis and size, QR payloads, raster images and cuts. Commands outside the set the
// builders emit are flagged (or, in strict mode, rejected) instead of being guessed at.
import { codePageByEscT, decodeText, type CodePageId } from './code-pages.ts';
import {
  ALIGN,
  CUT,
  ESC,
  ESC_CMD,
  GS,
  GS_CMD,
  LF,
  QR,
  QR_ERROR_CORRECTION,
  type Align,
  type BitImage,
} from './commands.ts';

export interface TextRun {
  text: string;
  bold: boolean;
  /** Character width and height multipliers (GS !). */
  width: number;
  height: number;
}

export interface DecodedLine {
  kind: 'line';
  /** The whole line as text. */
  text: string;
  align: Align;
  /** True when every character of the line is emphasized. */
  bold: boolean;
  runs: TextRun[];
  /** Columns the line takes (a double-width character takes two). */
  columns: number;
  /** Code page the line was printed with. */
  codePage: CodePageId;
}

export interface DecodedQr {
  kind: 'qr';
  data: string;
  model: 1 | 2 | 3;
  moduleSize: number;
  errorCorrection: 'L' | 'M' | 'Q' | 'H';
  align: Align;
}

export interface DecodedRaster extends BitImage {
  kind: 'raster';
  /** m of GS v 0 (0 normal, 1 double width, 2 double height, 3 both). */
  mode: number;
  align: Align;
}

export interface DecodedFeed {
  kind: 'feed';
  /** Lines fed by ESC d (after printing the buffer). */
  lines: number;
}

export interface DecodedCut {
  kind: 'cut';
  partial: boolean;
  /** Motion units fed before the cut (function B), 0 for function A. */
  feed: number;
}

export interface DecodedDrawer {
  kind: 'drawer';
  /** Connector pin of ESC p (m 0 → pin 2, m 1 → pin 5). */
  pin: 2 | 5;
  /** On and off times in 2 ms units. */
  t1: number;
  t2: number;
}

export interface UnknownCommand {
  offset: number;
  /** The bytes that could not be interpreted, as hex ("1b 70"). */
  hex: string;
  reason: string;
}

export type DecodedItem = DecodedLine | DecodedQr | DecodedRaster | DecodedFeed | DecodedCut | DecodedDrawer;

export interface DecodedReceipt {
  /** Columns of font A on the paper the job was read for (48 at 80 mm, 32 at 58 mm). */
  columns: number;
  items: DecodedItem[];
  lines: DecodedLine[];
  qrCodes: DecodedQr[];
  rasters: DecodedRaster[];
  cuts: number;
  /** ESC p pulses, in order: each opens the cash drawer. */
  drawerKicks: DecodedDrawer[];
  /** Every code page selected with ESC t, in order (the power-on page is PC437). */
  codePages: CodePageId[];
  initCount: number;
  unknown: UnknownCommand[];
}

export interface DecodeOptions {
  /** Columns of the paper (default 48). */
  columns?: number;
  /** Throw on the first command outside the supported set (default false: flag it and go on). */
  strict?: boolean;
}

export class EscposDecodeError extends Error {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(`${message} at byte ${offset}`);
    this.name = 'EscposDecodeError';
    this.offset = offset;
  }
}

const ALIGN_BY_VALUE = new Map<number, Align>(
  (Object.entries(ALIGN) as [Align, number][]).flatMap(([name, v]) => [
    [v, name],
    [v + 0x30, name],
  ]),
);

const EC_BY_VALUE = new Map<number, DecodedQr['errorCorrection']>(
  (Object.entries(QR_ERROR_CORRECTION) as [DecodedQr['errorCorrection'], number][]).map(([k, v]) => [v, k]),
);

function hex(bytes: Uint8Array, from: number, to: number): string {
  return [...bytes.subarray(from, Math.min(to, bytes.length))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(' ');
}

interface State {
  page: CodePageId;
  align: Align;
  bold: boolean;
  width: number;
  height: number;
}

export function decodeEscpos(bytes: Uint8Array, options: DecodeOptions = {}): DecodedReceipt {
  const result: DecodedReceipt = {
    columns: options.columns ?? 48,
    items: [],
    lines: [],
    qrCodes: [],
    rasters: [],
    cuts: 0,
    drawerKicks: [],
    codePages: [],
    initCount: 0,
    unknown: [],
  };
  const initial = (): State => ({ page: 'pc437', align: 'left', bold: false, width: 1, height: 1 });
  let state = initial();
  // The QR symbol being set up (GS ( k functions 65/67/69/80 before 81 prints it); ESC @ restores the
  // power-on values (model 2, 3-dot modules, level L, nothing stored).
  type QrSetup = {
    model: 1 | 2 | 3;
    moduleSize: number;
    ec: DecodedQr['errorCorrection'];
    data: string | null;
  };
  const initialQr = (): QrSetup => ({ model: 2, moduleSize: 3, ec: 'L', data: null });
  let qr = initialQr();
  // Runs of the line being assembled, and the justification it started with.
  let runs: { bytes: number[]; bold: boolean; width: number; height: number; page: CodePageId }[] = [];
  let lineAlign: Align = 'left';

  const flag = (offset: number, length: number, reason: string): void => {
    if (options.strict === true)
      throw new EscposDecodeError(`${reason} (${hex(bytes, offset, offset + length)})`, offset);
    result.unknown.push({ offset, hex: hex(bytes, offset, offset + length), reason });
  };
  const need = (offset: number, count: number, what: string): boolean => {
    if (offset + count <= bytes.length) return true;
    flag(offset, bytes.length - offset, `${what} truncated`);
    return false;
  };
  const lineIsEmpty = (): boolean => runs.every((r) => r.bytes.length === 0);

  const endLine = (): void => {
    const decodedRuns: TextRun[] = runs
      .filter((r) => r.bytes.length > 0)
      .map((r) => ({
        text: decodeText(Uint8Array.from(r.bytes), r.page),
        bold: r.bold,
        width: r.width,
        height: r.height,
      }));
    const text = decodedRuns.map((r) => r.text).join('');
    const line: DecodedLine = {
      kind: 'line',
      text,
      align: lineAlign,
      bold: decodedRuns.length > 0 && decodedRuns.every((r) => r.bold),
      runs: decodedRuns,
      columns: decodedRuns.reduce((n, r) => n + [...r.text].length * r.width, 0),
      codePage: runs.find((r) => r.bytes.length > 0)?.page ?? state.page,
    };
    result.items.push(line);
    result.lines.push(line);
    runs = [];
  };
  const flushPending = (): void => {
    if (!lineIsEmpty()) endLine();
  };
  const pushChar = (b: number): void => {
    if (lineIsEmpty()) lineAlign = state.align;
    const last = runs.at(-1);
    if (
      last !== undefined &&
      last.bold === state.bold &&
      last.width === state.width &&
      last.height === state.height &&
      last.page === state.page
    ) {
      last.bytes.push(b);
    } else {
      runs.push({ bytes: [b], bold: state.bold, width: state.width, height: state.height, page: state.page });
    }
  };

  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b === LF) {
      if (lineIsEmpty()) lineAlign = state.align;
      endLine();
      i += 1;
      continue;
    }
    if (b === ESC) {
      if (!need(i, 2, 'ESC command')) break;
      const cmd = bytes[i + 1] as number;
      if (cmd === ESC_CMD.init) {
        flushPending();
        state = initial();
        qr = initialQr();
        result.initCount += 1;
        i += 2;
        continue;
      }
      if (cmd === ESC_CMD.drawerPulse) {
        if (!need(i, 5, 'ESC p')) break;
        const m = bytes[i + 2] as number;
        // The printer reads only the low bit of m (0/48 → pin 2, 1/49 → pin 5).
        if (m !== 0 && m !== 1 && m !== 0x30 && m !== 0x31) flag(i, 5, `ESC p ${m}: not a drawer pin`);
        else {
          const kick: DecodedDrawer = {
            kind: 'drawer',
            pin: (m & 1) === 0 ? 2 : 5,
            t1: bytes[i + 3] as number,
            t2: bytes[i + 4] as number,
          };
          result.items.push(kick);
          result.drawerKicks.push(kick);
        }
        i += 5;
        continue;
      }
      if (!need(i, 3, 'ESC command')) break;
      const n = bytes[i + 2] as number;
      switch (cmd) {
        case ESC_CMD.codeTable: {
          const page = codePageByEscT(n);
          if (page === undefined) flag(i, 3, `ESC t ${n}: no table for this code page`);
          else {
            state.page = page.id;
            result.codePages.push(page.id);
          }
          break;
        }
        case ESC_CMD.align: {
          const align = ALIGN_BY_VALUE.get(n);
          if (align === undefined) flag(i, 3, `ESC a ${n}: not a justification`);
          // Standard mode honours ESC a only at the start of a line and ignores it elsewhere.
          else if (!lineIsEmpty()) flag(i, 3, 'ESC a in the middle of a line (ignored by the printer)');
          else state.align = align;
          break;
        }
        case ESC_CMD.bold:
          state.bold = (n & 1) === 1;
          break;
        case ESC_CMD.printAndFeedLines:
          if (!lineIsEmpty()) endLine();
          result.items.push({ kind: 'feed', lines: n });
          break;
        default:
          flag(i, 2, `unsupported command ESC 0x${cmd.toString(16)}`);
          i += 2;
          continue;
      }
      i += 3;
      continue;
    }
    if (b === GS) {
      if (!need(i, 2, 'GS command')) break;
      const cmd = bytes[i + 1] as number;
      if (cmd === GS_CMD.charSize) {
        if (!need(i, 3, 'GS !')) break;
        const n = bytes[i + 2] as number;
        state.width = (n >> 4) + 1;
        state.height = (n & 0x0f) + 1;
        if (state.width > 8 || state.height > 8) flag(i, 3, `GS ! ${n}: size out of range`);
        i += 3;
        continue;
      }
      if (cmd === GS_CMD.cut) {
        if (!need(i, 3, 'GS V')) break;
        const m = bytes[i + 2] as number;
        flushPending();
        if (m === CUT.full || m === 0x30 || m === CUT.partial || m === 0x31) {
          result.items.push({ kind: 'cut', partial: m === CUT.partial || m === 0x31, feed: 0 });
          result.cuts += 1;
          i += 3;
        } else if (m === CUT.fullAfterFeed || m === CUT.partialAfterFeed) {
          if (!need(i, 4, 'GS V')) break;
          result.items.push({
            kind: 'cut',
            partial: m === CUT.partialAfterFeed,
            feed: bytes[i + 3] as number,
          });
          result.cuts += 1;
          i += 4;
        } else {
          flag(i, 3, `GS V ${m}: unsupported cut function`);
          i += 3;
        }
        continue;
      }
      if (cmd === GS_CMD.symbol2d) {
        if (!need(i, 5, 'GS ( command')) break;
        const k = bytes[i + 2] as number;
        const length = (bytes[i + 3] as number) | ((bytes[i + 4] as number) << 8);
        const start = i + 5;
        if (!need(start, length, 'GS ( k data')) break;
        const params = bytes.subarray(start, start + length);
        const cn = params[0];
        const fn = params[1];
        if (k !== QR.k || cn !== QR.cn || length < 2) {
          flag(i, 5 + Math.min(length, 4), 'GS ( command other than the QR code functions');
        } else if (fn === QR.fnModel) {
          const n1 = params[2] ?? 0;
          if (n1 >= 0x31 && n1 <= 0x33) qr.model = (n1 - 0x30) as 1 | 2 | 3;
          else flag(i, 5 + length, `QR model ${n1}`);
        } else if (fn === QR.fnModuleSize) {
          const n = params[2] ?? 0;
          if (n >= 1 && n <= 16) qr.moduleSize = n;
          else flag(i, 5 + length, `QR module size ${n}`);
        } else if (fn === QR.fnErrorCorrection) {
          const ec = EC_BY_VALUE.get(params[2] ?? 0);
          if (ec === undefined) flag(i, 5 + length, `QR error correction ${params[2] ?? ''}`);
          else qr.ec = ec;
        } else if (fn === QR.fnStore && params[2] === QR.storeM) {
          qr.data = Buffer.from(params.subarray(3)).toString('latin1');
        } else if (fn === QR.fnPrint && params[2] === QR.storeM) {
          flushPending();
          if (qr.data === null) flag(i, 5 + length, 'QR print with no stored data');
          else {
            const item: DecodedQr = {
              kind: 'qr',
              data: qr.data,
              model: qr.model,
              moduleSize: qr.moduleSize,
              errorCorrection: qr.ec,
              align: state.align,
            };
            result.items.push(item);
            result.qrCodes.push(item);
          }
        } else {
          flag(i, 5 + length, `QR function ${fn ?? ''} not supported`);
        }
        i = start + length;
        continue;
      }
      if (cmd === GS_CMD.raster) {
        if (!need(i, 8, 'GS v 0')) break;
        if (bytes[i + 2] !== 0x30) {
          flag(i, 3, 'GS v other than GS v 0');
          i += 3;
          continue;
        }
        const mode = bytes[i + 3] as number;
        const bytesPerRow = (bytes[i + 4] as number) | ((bytes[i + 5] as number) << 8);
        const height = (bytes[i + 6] as number) | ((bytes[i + 7] as number) << 8);
        const size = bytesPerRow * height;
        if (!need(i + 8, size, 'GS v 0 image data')) break;
        flushPending();
        if (mode > 3 && !(mode >= 0x30 && mode <= 0x33)) flag(i, 4, `GS v 0 mode ${mode}`);
        const item: DecodedRaster = {
          kind: 'raster',
          width: bytesPerRow * 8,
          height,
          bits: bytes.slice(i + 8, i + 8 + size),
          mode: mode & 0x03,
          align: state.align,
        };
        result.items.push(item);
        result.rasters.push(item);
        i += 8 + size;
        continue;
      }
      flag(i, 2, `unsupported command GS 0x${cmd.toString(16)}`);
      i += 2;
      continue;
    }
    if (b < 0x20 || b === 0x7f) {
      flag(i, 1, `control byte 0x${b.toString(16)}`);
      i += 1;
      continue;
    }
    pushChar(b);
    i += 1;
  }
  if (!lineIsEmpty()) {
    // Text left in the buffer is not printed until a line feed arrives.
    flag(bytes.length, 0, 'text left in the buffer without a line feed');
  }
  return result;
}

/** Where a line of `columns` columns starts on paper `width` columns wide. */
export function alignedStart(align: Align, columns: number, width: number): number {
  if (align === 'center') return Math.max(0, Math.floor((width - columns) / 2));
  if (align === 'right') return Math.max(0, width - columns);
  return 0;
}

/**
 * The receipt as plain text: one string line per printed line, justified within `decoded.columns`
 * (double-width characters are written once but counted twice, so what follows them lines up), lines the
 * printer would wrap are wrapped, a QR code shows as "[QR <payload>]", an image as "[image WxH]" and a cut
 * as a row of "✂ -".
 */
export function receiptText(decoded: DecodedReceipt): string {
  const width = decoded.columns;
  const out: string[] = [];
  for (const item of decoded.items) {
    switch (item.kind) {
      case 'line': {
        if (item.columns <= width) {
          out.push((' '.repeat(alignedStart(item.align, item.columns, width)) + item.text).trimEnd());
          break;
        }
        // The printer wraps at the paper edge, character by character.
        let current = '';
        let used = 0;
        for (const run of item.runs) {
          for (const ch of run.text) {
            if (used + run.width > width) {
              out.push(current.trimEnd());
              current = '';
              used = 0;
            }
            current += ch;
            used += run.width;
          }
        }
        out.push((' '.repeat(alignedStart(item.align, used, width)) + current).trimEnd());
        break;
      }
      case 'feed':
        for (let n = 0; n < item.lines; n++) out.push('');
        break;
      case 'qr':
        out.push(`[QR ${item.data}]`);
        break;
      case 'raster':
        out.push(`[image ${item.width}x${item.height}]`);
        break;
      case 'cut':
        out.push(
          `${item.partial ? '✂ partial ' : '✂ '}${'-'.repeat(Math.max(0, width - (item.partial ? 10 : 2)))}`,
        );
        break;
    }
  }
  return `${out.join('\n')}\n`;
}
