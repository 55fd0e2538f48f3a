// The bytes a printer profile gets: the NFC-e receipt (DANFCe in ESC/POS) and the test page, laid out by
// the ESC/POS builder with the printer's paper width, QR mode and code page.
import type { DocumentRow } from '../documents/repository.ts';
import { outputDocumentOf } from '../outputs/document.ts';
import { buildNfceReceipt, buildTestPage, type EscposProfile } from '../outputs/escpos/receipt.ts';
import type { PrinterRow } from './repository.ts';

export function largura(printer: PrinterRow): 80 | 58 {
  return printer.largura === 58 ? 58 : 80;
}

export function escposProfile(printer: PrinterRow): EscposProfile {
  return {
    qr: printer.qr === 'raster' ? 'raster' : 'native',
    codePage: printer.code_page as EscposProfile['codePage'],
  };
}

/** The receipt of an issued NFC-e: the nfeProc once authorized, the signed NFe in contingency. */
export function nfceReceiptBytes(doc: DocumentRow, printer: PrinterRow): Uint8Array {
  return buildNfceReceipt(outputDocumentOf(doc), {
    largura: largura(printer),
    cut: true,
    profile: escposProfile(printer),
  });
}

export function testPageBytes(printer: PrinterRow, at: Date): Uint8Array {
  return buildTestPage({
    largura: largura(printer),
    profile: escposProfile(printer),
    printerName: printer.nome,
    at,
  });
}
