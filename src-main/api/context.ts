// What route modules receive from the composition root.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { OutboxWorker } from '../outbox/worker.ts';
import type { FaultControl } from '../sandbox/faults.ts';
import type { IssueDeps } from '../documents/issue.ts';
import type { PixRuntime } from '../pix/service.ts';
import type { Ambiente } from '../db/schema.ts';
import type { NfseMunicipalParams } from '../authority/nfse/port.ts';
import { serviceStarting } from './errors.ts';

export interface ApiDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  logger: Logger;
  /** Told after a company's fiscal settings change (the embedded sandbox re-reads its CSC). */
  hooks: ServiceHooks;
}

export interface ServiceHooks {
  companyChanged(companyId: string): Promise<void>;
  /** The transmission queue, set once the service has started it (routes are built before it exists). */
  worker: OutboxWorker | null;
  /** Fault switches of the embedded sandbox authority; absent or null when none runs in this process. */
  sandboxFaults?: FaultControl | null;
  /** The embedded sandbox PSP and the service's address for PSP webhooks; set once the service listens. */
  pix?: PixRuntime;
  /**
   * The national NFS-e environment's municipal parameters (convênio, ISS rate) for a company, asked over its
   * A1 like the DPS itself; set by the service once its authority connections exist.
   */
  nfseMunicipal?: (companyId: string, ambiente?: Ambiente) => Promise<NfseMunicipalParams>;
}

/** What the document services need; the queue exists only once the service has started it. */
export function issueDepsOf(deps: ApiDeps): IssueDeps {
  if (deps.hooks.worker === null) throw serviceStarting('The transmission queue is starting.');
  return { db: deps.db, clock: deps.clock, secrets: deps.secrets, worker: deps.hooks.worker };
}
