// The QR code of the NFC-e (NT 2015.002 / MOC 7.0 annex: error correction M) as a plain module matrix,
// so the DANFCe PDF draws it as vector squares and the ESC/POS receipt can rasterize it the same way.
import QRCode from 'qrcode';

export interface QrMatrix {
  /** Modules per side (no quiet zone included: callers leave 4 modules free around it). */
  size: number;
  /** x = column, y = row, both 0-based from the top-left corner. */
  isDark(x: number, y: number): boolean;
}

export type QrErrorCorrection = 'L' | 'M' | 'Q' | 'H';

export function qrMatrix(text: string, errorCorrectionLevel: QrErrorCorrection = 'M'): QrMatrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel });
  const { size, data } = modules;
  return {
    size,
    isDark: (x, y) => x >= 0 && y >= 0 && x < size && y < size && data[y * size + x] === 1,
  };
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
