// The bytes a printer profile gets: the NFC-e receipt (DANFCe in ESC/POS), the test page, generic tickets and
// drawer kicks, laid out by the ESC/POS builder with the printer's paper width, QR mode, code page and drawer.
import type { DocumentRow } from '../documents/repository.ts';
import { outputDocumentOf } from '../outputs/document.ts';
import { drawerPulse, type DrawerPulse } from '../outputs/escpos/commands.ts';
import { buildNfceReceipt, buildTestPage, type EscposProfile } from '../outputs/escpos/receipt.ts';
import type { PrinterRow } from './repository.ts';

/** tPag 01: the payment that goes into the drawer. */
const TPAG_DINHEIRO = '01';

export function largura(printer: PrinterRow): 80 | 58 {
  return printer.largura === 58 ? 58 : 80;
}

export function escposProfile(printer: PrinterRow): EscposProfile {
  return {
    qr: printer.qr === 'raster' ? 'raster' : 'native',
    codePage: printer.code_page as EscposProfile['codePage'],
  };
}

/** The printer's drawer pulse, or undefined when it has no active drawer. */
export function drawerOf(printer: PrinterRow): DrawerPulse | undefined {
  if (printer.gaveta_ativa !== 1) return undefined;
  return drawerPulse(printer.gaveta_pino === 5 ? 5 : 2, printer.gaveta_pulso_ms);
}

/**
 * The receipt of an issued NFC-e: the nfeProc once authorized, the signed NFe in contingency. With
 * `openDrawer`, a note paid (partly) in cash opens the printer's active drawer before the cut; a cancelled
 * note never does.
 */
export function nfceReceiptBytes(
  doc: DocumentRow,
  printer: PrinterRow,
  options: { openDrawer?: boolean } = {},
): Uint8Array {
  const output = outputDocumentOf(doc);
  const cash = !output.cancelled && (output.pag?.detPag ?? []).some((p) => p.tPag === TPAG_DINHEIRO);
  const drawer = options.openDrawer === true && cash ? drawerOf(printer) : undefined;
  return buildNfceReceipt(output, {
    largura: largura(printer),
    cut: true,
    profile: escposProfile(printer),
    ...(drawer === undefined ? {} : { drawer }),
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
