// Entry of the PDF render workers: the DANFE and DANFCe drawn from the note's output model, their bytes moved
// back to the request thread.
import type { OutputDocument } from '../outputs/model.ts';
import { renderDanfe } from '../outputs/pdf/danfe.ts';
import { renderDanfce } from '../outputs/pdf/danfce.ts';
import { serveTasks } from './serve.ts';
import type { PdfTask } from './pdf.ts';

/** A Buffer again (pdfkit takes a logo only as one); a structured clone arrives as a Uint8Array. */
const asBuffer = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The PDF's bytes, moved when they own their memory (a small Buffer may sit in Node's shared pool). */
function moved(pdf: Buffer): { value: Uint8Array; transfer: ArrayBuffer[] } {
  const own =
    pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength
      ? pdf
      : Buffer.from(Uint8Array.from(pdf));
  return { value: own, transfer: [own.buffer as ArrayBuffer] };
}

serveTasks({
  danfe: async ({ doc, logo }: { doc: OutputDocument; logo?: Uint8Array }) => {
    const buffer = asBuffer(logo);
    return moved(await renderDanfe(doc, buffer === undefined ? {} : { logo: buffer }));
  },
  danfce: async ({ doc, width, logo }: PdfTask & { width: 80 | 58 }) => {
    const buffer = asBuffer(logo);
    return moved(await renderDanfce(doc, { width, ...(buffer === undefined ? {} : { logo: buffer }) }));
  },
});
