// The company's status as the cashier's status bar shows it: which authority new notes go to, what the
// queue still holds, and how long the A1 certificate has left.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
import { getCertificateStatus } from '../companies/service.ts';
import { statusRepository, type ContingencyModeRow } from './repository.ts';
import type { CompanyStatus } from '../../src-shared/contracts/documents.ts';

/** GET /v1/companies/:id/status (the shared contract). */
export type CompanyStatusView = CompanyStatus;

export type AuthorityMode = ContingencyModeRow['mode'];

/**
 * One mode for the bar although the rows are per model: NFC-e offline stops the cashier's normal flow, so it
 * outranks an NF-e switched to SVC, which still talks to an authority.
 */
const MODE_WEIGHT: Readonly<Record<AuthorityMode, number>> = {
  normal: 0,
  'SVC-AN': 1,
  'SVC-RS': 1,
  // CT-e's other virtual authority (SVC-SP, tpEmis 8).
  'SVC-SP': 1,
  offline: 2,
};

export function effectiveMode(rows: readonly ContingencyModeRow[]): ContingencyModeRow | null {
  let chosen: ContingencyModeRow | null = null;
  for (const row of rows) {
    if (row.mode === 'normal') continue;
    if (chosen === null || MODE_WEIGHT[row.mode] > MODE_WEIGHT[chosen.mode]) chosen = row;
  }
  return chosen;
}

export async function companyStatus(
  db: Db,
  clock: Clock,
  company: { id: string; ambiente: Ambiente },
): Promise<CompanyStatusView> {
  const [modes, pendentes, contingencia, certificate] = await Promise.all([
    statusRepository.contingencyModes(db, company.id),
    statusRepository.openOutboxCount(db, company.id),
    statusRepository.offlineNfceCount(db, company.id),
    getCertificateStatus(db, clock, company.id),
  ]);
  const mode = effectiveMode(modes);
  return {
    ambiente: company.ambiente,
    autoridade: {
      modo: mode?.mode ?? 'normal',
      online: mode?.mode !== 'offline',
      desde: mode?.since ?? null,
      motivo: mode?.reason ?? null,
    },
    fila: { pendentes, contingencia },
    certificado:
      certificate === null
        ? null
        : { validoAte: certificate.notAfter, diasParaExpirar: certificate.daysToExpiry },
  };
}
