// Barcodes of the fiscal outputs: Code 128 for the DANFE access key, QR matrices for NFC-e.
export { code128Bars, encodeCode128, CODE128_QUIET_ZONE, type Code128 } from './code128.ts';
export { qrMatrix, qrRuns, qrSize, type QrErrorCorrection, type QrMatrix } from './qr.ts';
