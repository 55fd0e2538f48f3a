// Types for the parts of the qrcode package's core that qr.ts reads to size a symbol without building it
// (the package's own typings cover only its public API).
declare module 'qrcode/lib/core/segments.js' {
  export interface Segment {
    getLength(): number;
  }
  export function rawSplit(data: string): Segment[];
  export function fromString(data: string, version: number): Segment[];
}

declare module 'qrcode/lib/core/version.js' {
  export function getBestVersionForData(
    data: unknown[],
    errorCorrectionLevel: { bit: number },
  ): number | undefined;
}

declare module 'qrcode/lib/core/error-correction-level.js' {
  export const L: { bit: number };
  export const M: { bit: number };
  export const Q: { bit: number };
  export const H: { bit: number };
}

declare module 'qrcode/lib/core/mode.js' {
  export interface QrMode {
    id: string;
    bit: number;
    ccBits: number[];
  }
  export const NUMERIC: QrMode;
  export const ALPHANUMERIC: QrMode;
  export const BYTE: QrMode;
  export function getCharCountIndicator(mode: QrMode, version: number): number;
}
