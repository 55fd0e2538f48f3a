// The explicit, ordered list of migrations (CONVENTIONS.md §7): append new entries, never edit old ones.
import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.ts';
import * as nfceQrVersion from './2026_11_22_0002_nfce_qrcode_version.ts';
import * as documentsOutbox from './2026_11_22_0003_documents_outbox.ts';
import * as webhooks from './2026_11_22_0004_webhooks.ts';
import * as documentEvents from './2026_11_22_0005_document_events.ts';
import * as outboxAnswers from './2026_11_22_0007_outbox_answers.ts';
import * as batchesReceived from './2026_11_22_0008_batches_received.ts';
import * as printing from './2026_11_22_0009_printing.ts';
import * as companyLogos from './2026_11_22_0010_company_logos.ts';
import * as defaultFiscalProfile from './2026_11_23_0011_default_fiscal_profile.ts';
import * as uuidIds from './2026_11_23_0012_uuid_ids.ts';
import * as idempotencyRecovery from './2026_11_24_0013_idempotency_recovery.ts';
import * as operators from './2026_11_24_0014_operators.ts';
import * as registerSessions from './2026_11_24_0015_register_sessions.ts';
import * as printerDrawer from './2026_11_24_0016_printer_drawer.ts';
import * as pix from './2026_11_24_0017_pix.ts';
import * as pixRemoved from './2026_11_24_0018_pix_removed.ts';
import * as pixSandboxSecret from './2026_11_24_0019_pix_sandbox_secret.ts';
import * as ncmIbpt from './2026_11_24_0020_ncm_ibpt.ts';
import * as companyRespTec from './2026_11_24_0021_company_resp_tec.ts';
import * as outboxOperation from './2026_11_24_0022_outbox_operation.ts';
import * as cteModelo from './2026_11_24_0023_cte_modelo.ts';
import * as nfse from './2026_11_24_0024_nfse.ts';
import * as services from './2026_11_24_0025_services.ts';
import * as servicesIbsCbs from './2026_11_24_0026_services_ibscbs.ts';
import * as dce from './2026_11_24_0027_dce.ts';
import * as listIndexes from './2026_11_24_0028_list_indexes.ts';
import * as xmlOnce from './2026_11_24_0029_xml_once.ts';
import * as listSummary from './2026_11_24_0030_list_summary.ts';
import * as replacedAttemptsIndex from './2026_11_24_0031_replaced_attempts_index.ts';
import * as countsByCreatedDay from './2026_11_25_0032_counts_by_created_day.ts';

const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_nfce_qrcode_version': nfceQrVersion,
  '2026_11_22_0003_documents_outbox': documentsOutbox,
  '2026_11_22_0004_webhooks': webhooks,
  '2026_11_22_0005_document_events': documentEvents,
  '2026_11_22_0007_outbox_answers': outboxAnswers,
  '2026_11_22_0008_batches_received': batchesReceived,
  '2026_11_22_0009_printing': printing,
  '2026_11_22_0010_company_logos': companyLogos,
  '2026_11_23_0011_default_fiscal_profile': defaultFiscalProfile,
  '2026_11_23_0012_uuid_ids': uuidIds,
  '2026_11_24_0013_idempotency_recovery': idempotencyRecovery,
  '2026_11_24_0014_operators': operators,
  '2026_11_24_0015_register_sessions': registerSessions,
  '2026_11_24_0016_printer_drawer': printerDrawer,
  '2026_11_24_0017_pix': pix,
  '2026_11_24_0018_pix_removed': pixRemoved,
  '2026_11_24_0019_pix_sandbox_secret': pixSandboxSecret,
  '2026_11_24_0020_ncm_ibpt': ncmIbpt,
  '2026_11_24_0021_company_resp_tec': companyRespTec,
  '2026_11_24_0022_outbox_operation': outboxOperation,
  '2026_11_24_0023_cte_modelo': cteModelo,
  '2026_11_24_0024_nfse': nfse,
  '2026_11_24_0025_services': services,
  '2026_11_24_0026_services_ibscbs': servicesIbsCbs,
  '2026_11_24_0027_dce': dce,
  '2026_11_24_0028_list_indexes': listIndexes,
  '2026_11_24_0029_xml_once': xmlOnce,
  '2026_11_24_0030_list_summary': listSummary,
  '2026_11_24_0031_replaced_attempts_index': replacedAttemptsIndex,
  '2026_11_25_0032_counts_by_created_day': countsByCreatedDay,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
