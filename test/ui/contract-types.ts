// Compile-time checks (no runtime): the answers the renderer's client declares in
// src-shared/contracts/api-client.ts stay readable from what the service really returns. `npm run typecheck`
// fails here when a route's view changes and the client was not updated. (The note, received-note and
// status views need no check: service and client share them from src-shared/contracts/documents.ts.)
import type * as Client from '../../src-shared/contracts/api-client.ts';
import type { BatchProgress } from '../../src-main/documents/batch.ts';
import type { CorrectionLetterView, EventView } from '../../src-main/documents/events-service.ts';
import type { VoidResult } from '../../src-main/documents/inutilizar.ts';

/** true when every value of the service's type is a value of the client's. */
type Reads<Service, ClientSide> = [Service] extends [ClientSide] ? true : false;

export const contractChecks: {
  batch: Reads<BatchProgress, Client.BatchProgress>;
  event: Reads<EventView, Client.EventView>;
  letter: Reads<CorrectionLetterView, Client.CorrectionLetterView>;
  voidRange: Reads<VoidResult, Client.VoidRangeResult>;
} = {
  batch: true,
  event: true,
  letter: true,
  voidRange: true,
};
