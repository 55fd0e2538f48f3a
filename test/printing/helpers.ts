// Setup shared by the printing HTTP tests: the real service (startHarness) with its embedded sandbox
// authority, a request helper that waits out the per-second rate budget, and the sale body.
import { buildNfceReceipt, type EscposProfile } from '../../src-main/outputs/escpos/receipt.ts';
import type { DrawerPulse } from '../../src-main/outputs/escpos/commands.ts';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import { documentsRepository, type DocumentRow } from '../../src-main/documents/repository.ts';
import type { Harness, RequestOptions, TestResponse } from '../api/harness.ts';

export const item = {
  codigo: 'A1',
  descricao: 'Água mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 2,
  valor_unitario: '3.50',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};
export const sale = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };

/** The manual clock stands still, so the per-second budget never refills by itself: a 429 moves it on. */
export async function api(
  h: Harness,
  method: string,
  url: string,
  opts?: RequestOptions,
): Promise<TestResponse> {
  for (;;) {
    const res = await h.request(method, url, opts);
    if (res.status !== 429) return res;
    h.clock.advance(Number(res.headers.get('Retry-After') ?? '1') * 1000);
  }
}

export async function createPrinter(
  h: Harness,
  body: Record<string, unknown>,
  companyId = h.companyId,
): Promise<{ id: string }> {
  const res = await api(h, 'POST', `/v1/companies/${companyId}/printers`, { json: body });
  if (res.status !== 201) throw new Error(`printer not created: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

export async function sell(h: Harness): Promise<{ id: string; status: string }> {
  const res = await api(h, 'POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: sale });
  if (res.status !== 201) throw new Error(`sale failed: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string };
}

/** The note as the service reads it (its authorized copy whole, however the row stores it). */
export async function documentRow(h: Harness, id: string): Promise<DocumentRow> {
  return documentsRepository.getById(h.service.db, id);
}

/** ESC p of a printer with the default drawer (pin 2, 100 ms): t1 = 50 × 2 ms, 500 ms off. */
export const DEFAULT_KICK: DrawerPulse = { pin: 2, t1: 50, t2: 250 };

/**
 * What the ESC/POS builder makes of the note as stored now: what the printer must receive. `drawer`: the
 * kick a cash sale's first receipt carries.
 */
export function expectedReceipt(
  doc: DocumentRow,
  largura: 80 | 58,
  profile: EscposProfile,
  drawer?: DrawerPulse,
): Buffer {
  const output = parseOutputDocument(doc.proc_xml ?? doc.xml, { cancelled: doc.status === 'cancelada' });
  return Buffer.from(
    buildNfceReceipt(output, { largura, cut: true, profile, ...(drawer === undefined ? {} : { drawer }) }),
  );
}

export async function jobsOf(h: Harness, documentId: string) {
  return h.service.db
    .selectFrom('print_jobs')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .execute();
}
