// ESC/POS receipts for NFC-e: the builders the printing queue and the /escpos routes call, the decoder that
// reads a job back, and the PNG preview of what the printer prints.
export {
  buildNfceReceipt,
  buildTestPage,
  DEFAULT_PROFILE,
  type EscposProfile,
  type ReceiptOptions,
  type TestPageOptions,
} from './receipt.ts';
export { CODE_PAGE_IDS, DEFAULT_CODE_PAGE, codePage, type CodePageId } from './code-pages.ts';
export {
  decodeEscpos,
  receiptText,
  EscposDecodeError,
  type DecodedReceipt,
  type DecodeOptions,
} from './decoder.ts';
export { renderReceiptPng } from './preview.ts';
export { buildDrawerKick, buildTicket, type TicketHeader, type TicketLine } from './ticket.ts';
export { COLUMNS, DOTS, type Largura } from './layout.ts';
