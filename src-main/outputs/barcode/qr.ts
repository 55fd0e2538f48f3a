// The QR code of the NFC-e (NT 2015.002 / MOC 7.0 annex: error correction M) as a plain module matrix,
// so the DANFCe PDF draws it as vector squares and the ESC/POS receipt can rasterize it the same way.
import QRCode from 'qrcode';
import * as ECLevel from 'qrcode/lib/core/error-correction-level.js';
import * as Segments from 'qrcode/lib/core/segments.js';
import * as Version from 'qrcode/lib/core/version.js';
import { hasLoneSurrogate, optimalSegments, rawSegments } from './qr-segments.ts';

export interface QrMatrix {
  /** Modules per side (no quiet zone included: callers leave 4 modules free around it). */
  size: number;
  /** x = column, y = row, both 0-based from the top-left corner. */
  isDark(x: number, y: number): boolean;
}

export type QrErrorCorrection = 'L' | 'M' | 'Q' | 'H';

export function qrMatrix(text: string, errorCorrectionLevel: QrErrorCorrection = 'M'): QrMatrix {
  // The segments QRCode.create(text) would choose, handed to it (qr-segments.ts): the same symbol, built
  // without qrcode's own graph search.
  const input = hasLoneSurrogate(text) ? text : segmentsFor(text, ECLevel[errorCorrectionLevel]);
  const { modules } = QRCode.create(input, { errorCorrectionLevel });
  const { size, data } = modules;
  return {
    size,
    isDark: (x, y) => x >= 0 && y >= 0 && x < size && y < size && data[y * size + x] === 1,
  };
}

function segmentsFor(text: string, level: { bit: number }): QRCode.QRCodeSegment[] {
  const estimated = Version.getBestVersionForData(rawSegments(text), level);
  // What Segments.fromString hands to Segments.fromArray inside QRCode.create: text data with qrcode's own
  // mode objects (the public typings know only mode names and byte data as bytes).
  return optimalSegments(text, estimated ?? 40).map(
    (s) => ({ data: s.data, mode: s.mode }) as unknown as QRCode.QRCodeSegment,
  );
}

/**
 * Modules per side of the symbol qrMatrix(text, level) would build, without building it: the version is
 * chosen exactly as QRCode.create does (the same optimized segments, the smallest version that holds them),
 * but the matrix, the eight mask evaluations and the Reed-Solomon blocks are skipped. The native ESC/POS
 * receipt needs only the size (for the module size in dots), and building the symbol was about a third of
 * its time.
 */
export function qrSize(text: string, errorCorrectionLevel: QrErrorCorrection = 'M'): number {
  if (text === '') throw new Error('No input text');
  const level = ECLevel[errorCorrectionLevel];
  // qr-segments.ts computes qrcode's own segmentation on arrays; text qrcode would reject goes to qrcode.
  const own = !hasLoneSurrogate(text);
  const estimated = Version.getBestVersionForData(own ? rawSegments(text) : Segments.rawSplit(text), level);
  const version = Version.getBestVersionForData(
    own ? optimalSegments(text, estimated ?? 40) : Segments.fromString(text, estimated ?? 40),
    level,
  );
  if (version === undefined) throw new Error('The amount of data is too big to be stored in a QR Code');
  // ISO/IEC 18004 §6.3.1: version V has 4V + 17 modules per side.
  return version * 4 + 17;
}

/**
 * Dark modules merged into horizontal runs, row by row: a QR drawn as one rectangle per run instead of
 * one per module keeps the PDF content stream (and a printer raster) about three times smaller.
 */
export function qrRuns(matrix: QrMatrix): Array<{ x: number; y: number; length: number }> {
  const runs: Array<{ x: number; y: number; length: number }> = [];
  for (let y = 0; y < matrix.size; y++) {
    let start = -1;
    for (let x = 0; x <= matrix.size; x++) {
      const dark = x < matrix.size && matrix.isDark(x, y);
      if (dark && start < 0) start = x;
      if (!dark && start >= 0) {
        runs.push({ x: start, y, length: x - start });
        start = -1;
      }
    }
  }
  return runs;
}
