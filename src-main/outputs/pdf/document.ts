// One place that opens a pdfkit document for our auxiliary documents (pages added by the caller, our fonts
// registered, no default font) and collects its bytes, so the DANFE and the DANFCe differ only in drawing.
import PDFDocument from 'pdfkit';
import { registerFonts } from './fonts.ts';

export interface PdfInfo {
  Title: string;
  Author: string;
}

/** Runs `draw` (which adds every page, with its size) on a fresh document; a throw in `draw` rejects. */
export function renderPdf(info: PdfInfo, draw: (pdf: PDFKit.PDFDocument) => void): Promise<Buffer> {
  const pdf = new PDFDocument({
    autoFirstPage: false,
    // No default font: pdfkit would parse Helvetica's metrics for each document; ours are registered.
    font: '',
    margin: 0,
    info: { ...info, Creator: 'Balcão' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  try {
    registerFonts(pdf);
    draw(pdf);
    pdf.end();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return done;
}
