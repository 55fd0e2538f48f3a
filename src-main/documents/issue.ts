// The NF-e/NFC-e entry points as the routes, batches and tests have always called them (model number in
// hand), on the generic lifecycle (documents/lifecycle.ts) and the two NF kinds. New kinds use the lifecycle
// directly with their kind; this module is the NF family's facade and the only documents/ module that
// names kinds (besides kinds/ itself).
import { kindOfModelo } from './registry.ts';
import {
  createDraft as createKindDraft,
  issueDocument as issueKindDocument,
  sendDocument as sendKindDocument,
  updateDraft as updateKindDraft,
  type Issued,
  type LifecycleDeps,
} from './lifecycle.ts';
import type { Emission } from './kind.ts';
import type { DocumentRow } from './repository.ts';
import { issueSale } from './kinds/nfce/sale.ts';

export { VER_PROC } from './kind.ts';
export type { Issued } from './lifecycle.ts';
export { offlineMode, setNfceOffline } from './kinds/nfce/contingency.ts';
export { sellNfce, resumeSale, sendNfceSale, type SaleResult, type SaleWait } from './kinds/nfce/sale.ts';
export { nfeEmission, switchNfeToSvc } from './kinds/nfe/contingency.ts';

export type IssueDeps = LifecycleDeps;

/** Issues and queues a note; with `replaces`, it is the NFC-e contingency re-issue of that doubtful attempt. */
export async function issueDocument(
  deps: IssueDeps,
  companyId: string,
  modelo: 55 | 65,
  payload: unknown,
  emissionOverride: Emission | null = null,
  replaces: DocumentRow | null = null,
): Promise<Issued> {
  if (modelo === 65) return issueSale(deps, companyId, payload, emissionOverride, replaces);
  return issueKindDocument(deps, kindOfModelo(modelo), companyId, payload, { emission: emissionOverride });
}

/** Creates a draft (`rascunho`): number reserved, note built and signed, nothing queued. */
export function createDraft(
  deps: IssueDeps,
  companyId: string,
  modelo: 55 | 65,
  payload: unknown,
): Promise<DocumentRow> {
  return createKindDraft(deps, kindOfModelo(modelo), companyId, payload);
}

/** PUT: only a draft or a rejected note changes; it keeps its number (seed §4.1). */
export function updateDraft(deps: IssueDeps, id: string, payload: unknown): Promise<DocumentRow> {
  return updateKindDraft(deps, id, payload);
}

/** Sends a draft or a rejected note; with `waitMs` the answer waits (bounded) for the authority. */
export function sendDocument(deps: IssueDeps, id: string, waitMs: number | null): Promise<DocumentRow> {
  return sendKindDocument(deps, id, waitMs);
}
