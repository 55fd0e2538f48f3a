// ESC/POS command bytes (Epson ESC/POS Application Programming Guide numbering, which Elgin, Bematech,
// Daruma and the generic 58/80 mm printers follow) and a writer that assembles a print job from them.
import { encodeText, type CodePageId } from './code-pages.ts';

export const ESC = 0x1b;
export const GS = 0x1d;
export const LF = 0x0a;

/** Second byte after ESC. */
export const ESC_CMD = {
  /** ESC @: initialize the printer (clears the buffer, modes back to power-on). */
  init: 0x40,
  /** ESC t n: select character code table. */
  codeTable: 0x74,
  /** ESC a n: justification, honoured at the start of a line. */
  align: 0x61,
  /** ESC E n: emphasized (bold) on when the low bit of n is set. */
  bold: 0x45,
  /** ESC d n: print the buffer and feed n lines. */
  printAndFeedLines: 0x64,
  /** ESC p m t1 t2: pulse on the drawer kick connector, on for t1 × 2 ms, off for t2 × 2 ms. */
  drawerPulse: 0x70,
} as const;

/** m of ESC p: connector pin 2 is 0, pin 5 is 1 (the byte may also be sent as ASCII '0'/'1'). */
export const DRAWER_PIN_M = { 2: 0x00, 5: 0x01 } as const;

/** A drawer kick as the printer gets it: which pin, and the on/off times in 2 ms units (1–255). */
export interface DrawerPulse {
  pin: keyof typeof DRAWER_PIN_M;
  /** On time in 2 ms units. */
  t1: number;
  /** Off time in 2 ms units; the printer takes t1 when t2 is smaller. */
  t2: number;
}

/**
 * Off time after the pulse: 500 ms (t2 = 250) lets the solenoid release before anything else reaches the
 * connector, the value drawer makers (Bematech, Elgin, Epson's example) give.
 */
export const DRAWER_OFF_UNITS = 250;

/** The ESC p timing of a profile's pulse length in ms: t1 = ms / 2 rounded, never 0 nor above 255. */
export function drawerPulse(pin: 2 | 5, pulseMs: number): DrawerPulse {
  const t1 = Math.min(255, Math.max(1, Math.round(pulseMs / 2)));
  return { pin, t1, t2: Math.max(t1, DRAWER_OFF_UNITS) };
}

/** Second byte after GS. */
export const GS_CMD = {
  /** GS ! n: character size, width multiplier in the high nibble, height in the low one (value − 1). */
  charSize: 0x21,
  /** GS V m [n]: cut. */
  cut: 0x56,
  /** GS ( k pL pH cn fn ...: 2D symbols (cn 49 = QR Code). */
  symbol2d: 0x28,
  /** GS v 0 m xL xH yL yH d...: print raster bit image. */
  raster: 0x76,
} as const;

export const ALIGN = { left: 0, center: 1, right: 2 } as const;
export type Align = keyof typeof ALIGN;

/** m of GS V: function A cuts where the paper is, function B feeds n motion units first. */
export const CUT = {
  full: 0x00,
  partial: 0x01,
  fullAfterFeed: 0x41,
  partialAfterFeed: 0x42,
} as const;

/** GS ( k with cn = 49 (QR Code): the function codes fn. */
export const QR = {
  /** k = the 'k' after GS (. */
  k: 0x6b,
  cn: 0x31,
  /** fn 65: select model (n1 49 = model 1, 50 = model 2, 51 = micro QR; n2 0). */
  fnModel: 0x41,
  /** fn 67: module size in dots, 1–16. */
  fnModuleSize: 0x43,
  /** fn 69: error correction level, 48–51 = L, M, Q, H. */
  fnErrorCorrection: 0x45,
  /** fn 80: store data in the symbol storage area (m = 48). */
  fnStore: 0x50,
  /** fn 81: print the stored symbol (m = 48). */
  fnPrint: 0x51,
  /** n1 of fn 65 for model 2, the one every NFC-e reader expects. */
  model2: 0x32,
  /** m of fn 80 and fn 81. */
  storeM: 0x30,
} as const;

export const QR_ERROR_CORRECTION = { L: 0x30, M: 0x31, Q: 0x32, H: 0x33 } as const;
export type QrErrorCorrection = keyof typeof QR_ERROR_CORRECTION;

/** m of GS v 0: dot scaling of a raster image. */
export const RASTER_MODE = { normal: 0, doubleWidth: 1, doubleHeight: 2, quadruple: 3 } as const;

/** A monochrome image, one bit per dot, rows packed MSB first and padded to whole bytes. */
export interface BitImage {
  /** Width in dots. */
  width: number;
  /** Height in dots. */
  height: number;
  /** ceil(width / 8) × height bytes; a set bit prints a dot. */
  bits: Uint8Array;
}

function u16(n: number): [number, number] {
  return [n & 0xff, (n >> 8) & 0xff];
}

/** Builds one print job. Text goes through the selected code page; every command is a named method. */
export class EscposWriter {
  private readonly chunks: number[] = [];
  private page: CodePageId;

  constructor(codePage: CodePageId) {
    this.page = codePage;
  }

  raw(...bytes: number[]): this {
    for (const b of bytes) {
      if (!Number.isInteger(b) || b < 0 || b > 255) throw new RangeError(`not a byte: ${b}`);
      this.chunks.push(b);
    }
    return this;
  }

  init(): this {
    return this.raw(ESC, ESC_CMD.init);
  }

  codeTable(id: CodePageId, escT: number): this {
    this.page = id;
    return this.raw(ESC, ESC_CMD.codeTable, escT);
  }

  align(align: Align): this {
    return this.raw(ESC, ESC_CMD.align, ALIGN[align]);
  }

  bold(on: boolean): this {
    return this.raw(ESC, ESC_CMD.bold, on ? 1 : 0);
  }

  /** Width and height multipliers 1–8. */
  size(width: number, height: number): this {
    if (width < 1 || width > 8 || height < 1 || height > 8) throw new RangeError('size multipliers are 1–8');
    return this.raw(GS, GS_CMD.charSize, ((width - 1) << 4) | (height - 1));
  }

  /** Characters only; line ends are written with lf(). */
  text(text: string): this {
    for (const b of encodeText(text, this.page)) this.chunks.push(b);
    return this;
  }

  lf(): this {
    return this.raw(LF);
  }

  line(text: string): this {
    return this.text(text).lf();
  }

  feedLines(n: number): this {
    return this.raw(ESC, ESC_CMD.printAndFeedLines, n);
  }

  /** ESC p m t1 t2: opens the cash drawer on the kick connector. */
  drawerKick(pulse: DrawerPulse): this {
    for (const t of [pulse.t1, pulse.t2])
      if (!Number.isInteger(t) || t < 1 || t > 255) throw new RangeError('ESC p times are 1–255 units');
    return this.raw(ESC, ESC_CMD.drawerPulse, DRAWER_PIN_M[pulse.pin], pulse.t1, pulse.t2);
  }

  /** GS V: with `feed` (motion units), function B feeds that much first so the cut clears the print head. */
  cut(kind: 'full' | 'partial', feed?: number): this {
    if (feed === undefined) return this.raw(GS, GS_CMD.cut, kind === 'full' ? CUT.full : CUT.partial);
    return this.raw(GS, GS_CMD.cut, kind === 'full' ? CUT.fullAfterFeed : CUT.partialAfterFeed, feed);
  }

  private qrFunction(fn: number, ...params: number[]): this {
    return this.raw(GS, GS_CMD.symbol2d, QR.k, ...u16(params.length + 2), QR.cn, fn, ...params);
  }

  /** A QR code the printer encodes itself: model 2, module size in dots, error correction level. */
  qrCode(data: string, options: { moduleSize: number; errorCorrection: QrErrorCorrection }): this {
    if (options.moduleSize < 1 || options.moduleSize > 16)
      throw new RangeError('QR module size is 1–16 dots');
    // The payload of an NFC-e QR code is a URL: ASCII, sent as is (no code page involved).
    if (!/^[\x20-\x7e]*$/.test(data)) throw new RangeError('QR payload must be printable ASCII');
    const payload = Buffer.from(data, 'latin1');
    if (payload.length + 3 > 0xffff) throw new RangeError('QR payload too long');
    this.qrFunction(QR.fnModel, QR.model2, 0);
    this.qrFunction(QR.fnModuleSize, options.moduleSize);
    this.qrFunction(QR.fnErrorCorrection, QR_ERROR_CORRECTION[options.errorCorrection]);
    this.qrFunction(QR.fnStore, QR.storeM, ...payload);
    return this.qrFunction(QR.fnPrint, QR.storeM);
  }

  /** GS v 0: a bit image printed as is, normal scale. */
  raster(image: BitImage): this {
    const bytesPerRow = Math.ceil(image.width / 8);
    if (image.bits.length !== bytesPerRow * image.height)
      throw new RangeError('raster bits do not match the size');
    this.raw(GS, GS_CMD.raster, 0x30, RASTER_MODE.normal, ...u16(bytesPerRow), ...u16(image.height));
    for (const b of image.bits) this.chunks.push(b);
    return this;
  }

  bytes(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}
