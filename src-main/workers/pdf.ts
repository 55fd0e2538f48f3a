// The DANFE and DANFCe renders of the API, drawn on the worker pool so a 10-100 ms render does not hold the
// request thread (the sales behind it); BALCAO_WORKERS=0 draws them on the request thread.
import type { OutputDocument } from '../outputs/model.ts';
import { WorkerPool, defaultPoolSize, entryBeside } from './pool.ts';

export interface PdfTask {
  doc: OutputDocument;
  logo?: Uint8Array;
}

let pool: WorkerPool | null = null;
let size: number | null = null;

/** Workers for renders (config: BALCAO_WORKERS); 0 renders on the request thread. Read on the next render. */
export function setPdfWorkers(count: number | null): void {
  size = count;
}

/**
 * Inside Electron (one cashier's terminal, few renders) they stay on the thread unless BALCAO_WORKERS asks: the
 * packaged app's modules sit in an asar archive, and loading a worker's modules from it is not verified yet.
 */
const inElectron = process.versions['electron'] !== undefined;

function pdfPool(): WorkerPool | null {
  const wanted = size ?? (inElectron ? 0 : defaultPoolSize());
  if (wanted === 0) return null;
  if (pool === null || pool.size !== wanted) {
    void pool?.close();
    pool = new WorkerPool(entryBeside(import.meta.url, 'pdf-worker'), wanted);
  }
  return pool;
}

const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The DANFE (model 55) or DANFCe (model 65, `width` mm) of a note, with the emitter's logo when it has one. */
export async function renderNotePdf(doc: OutputDocument, width: 80 | 58, logo?: Buffer): Promise<Buffer> {
  const withLogo = logo === undefined ? {} : { logo };
  const workers = pdfPool();
  if (workers === null) {
    // Loaded on the first render: pdfkit and the drawings stay out of the idle service's memory.
    const { renderDanfe, renderDanfce } = await import('../outputs/pdf/index.ts');
    return doc.modelo === '55' ? renderDanfe(doc, withLogo) : renderDanfce(doc, { width, ...withLogo });
  }
  const task: PdfTask = { doc, ...withLogo };
  const bytes =
    doc.modelo === '55'
      ? await workers.run<Uint8Array>('danfe', task)
      : await workers.run<Uint8Array>('danfce', { ...task, width });
  return bufferOf(bytes);
}

/** Stops the render workers (tests, shutdown); the next render starts them again. */
export async function closePdfWorkers(): Promise<void> {
  const running = pool;
  pool = null;
  await running?.close();
}
