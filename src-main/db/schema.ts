// Typed view of the SQLite schema for Kysely; must match the migrations in ./migrations.
import type { Generated } from 'kysely';
import type { DocumentStatus } from '../../src-shared/contracts/documents.ts';

export type { DocumentStatus };

/** ISO 8601 timestamps are stored as TEXT so they sort and compare lexically. */
type IsoTimestamp = string;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: IsoTimestamp;
}

export type Ambiente = 'homologacao' | 'producao';
/** Which tax authority a company talks to: the embedded sandbox or the real SEFAZ web services. */
export type AuthorityTarget = 'sandbox' | 'sefaz';

export interface CompaniesTable {
  id: string;
  organization_id: string;
  cnpj: string;
  ie: string;
  im: string | null;
  x_nome: string;
  x_fant: string | null;
  crt: number;
  x_lgr: string;
  nro: string;
  x_cpl: string | null;
  x_bairro: string;
  c_mun: string;
  x_mun: string;
  uf: string;
  cep: string;
  fone: string | null;
  email: string | null;
  ambiente: Ambiente;
  authority: AuthorityTarget;
  csc_id: string | null;
  /** CSC token encrypted with the data-dir master key (secret-box format). */
  csc_token_enc: string | null;
  /** NFC-e QR code version (2 or 3) the company's UF expects. */
  nfce_qr_version: number;
  /** Fiscal profile of the items that name none and carry no taxes (simple mode); set at creation. */
  default_fiscal_profile_id: string | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export type ApiKeyScope = 'company' | 'organization';

export interface ApiKeysTable {
  id: string;
  /** Public part of the key, used to find the row without scanning hashes. */
  lookup: string;
  /** SHA-256 of the whole key; keys carry 256 random bits so a slow KDF adds nothing. */
  secret_hash: string;
  name: string;
  scope: ApiKeyScope;
  organization_id: string;
  company_id: string | null;
  plan: string;
  rate_per_second: number;
  rate_per_minute: number;
  created_at: IsoTimestamp;
  expires_at: IsoTimestamp | null;
  revoked_at: IsoTimestamp | null;
  replaced_by: string | null;
  last_used_at: IsoTimestamp | null;
}

export interface CertificatesTable {
  id: string;
  company_id: string;
  pfx_enc: string;
  password_enc: string;
  subject: string;
  issuer: string;
  serial_number: string;
  cnpj: string;
  not_before: IsoTimestamp;
  not_after: IsoTimestamp;
  active: number;
  created_at: IsoTimestamp;
}

export interface NumberSequencesTable {
  company_id: string;
  modelo: number;
  serie: number;
  ambiente: Ambiente;
  /** The next number to reserve; numbers below it were handed out. */
  next_number: number;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface CustomersTable {
  id: string;
  company_id: string;
  cpf: string | null;
  cnpj: string | null;
  id_estrangeiro: string | null;
  x_nome: string;
  ie: string | null;
  ind_ie_dest: number;
  email: string | null;
  fone: string | null;
  x_lgr: string | null;
  nro: string | null;
  x_cpl: string | null;
  x_bairro: string | null;
  c_mun: string | null;
  x_mun: string | null;
  uf: string | null;
  cep: string | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface FiscalProfilesTable {
  id: string;
  company_id: string;
  name: string;
  cfop: string;
  /** Tax groups (ICMS, PIS, COFINS, IPI, IBS/CBS) as JSON validated by src-shared/contracts; rates are decimal strings. */
  taxes_json: string;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface ProductsTable {
  id: string;
  company_id: string;
  c_prod: string;
  c_ean: string | null;
  x_prod: string;
  ncm: string;
  cest: string | null;
  u_com: string;
  /** Unit price as an exact decimal string (up to 10 decimals, layout vUnCom). */
  v_un_com: string;
  fiscal_profile_id: string | null;
  active: number;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface DocumentsTable {
  id: string;
  company_id: string;
  modelo: number;
  serie: number;
  n_nf: number;
  ambiente: Ambiente;
  tp_emis: number;
  chave: string;
  status: DocumentStatus;
  payload_json: string;
  /** The signed NFe exactly as transmitted. */
  xml: string;
  digest_value: string;
  v_nf: string;
  dh_emi: string;
  qr_code: string | null;
  url_chave: string | null;
  c_stat: string | null;
  x_motivo: string | null;
  n_prot: string | null;
  authorized_at: string | null;
  prot_xml: string | null;
  /** The authorized copy when kept whole; null when `proc_open` rebuilds it (documents/stored-xml.ts). */
  proc_xml: string | null;
  /**
   * Migration 0029: the authorized copy's opening tag when it is that tag + `xml` + `prot_xml` + its closing
   * tag, '' when it is `prot_xml` itself, null otherwise. Read rows through documentsRepository, which
   * gives `proc_xml` whole and drops this column.
   */
  proc_open?: string | null;
  replaced_by: string | null;
  replaces: string | null;
  /** The operator who issued the note (migration 0014); null for sales made by software without one. */
  operator_id?: string | null;
  /** The register session of a sale made by a signed-in operator (migration 0015); null otherwise. */
  register_session_id?: string | null;
  /**
   * Migration 0030: what the NF-e/NFC-e view reads from the XML (totals, items) as JSON, written with the XML
   * (documents/list-summary.ts); null for other kinds and for rows written without it (read from the XML).
   */
  list_summary?: string | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

/**
 * Migration 0030: how many documents a company has per model, status and emission day (dh_emi's date),
 * kept by triggers on documents; the NF-e/NFC-e lists' totals are sums of these.
 */
export interface DocumentCountsTable {
  company_id: string;
  modelo: number;
  status: DocumentStatus;
  dia: string;
  /** created_at's date part (UTC), the day of the list's order (migration 0032). */
  created_day: string;
  n: number;
}

export type OutboxKind = 'autorizacao' | 'evento' | 'inutilizacao';
/** `in_flight` rows found at start were interrupted mid-send: their result is unknown until consulted. */
export type OutboxState = 'pending' | 'in_flight' | 'unknown' | 'done' | 'failed';

export interface OutboxTable {
  id: Generated<number>;
  document_id: string | null;
  company_id: string;
  /** The operation: authorization, event or inutilização. */
  kind: OutboxKind;
  /** The document kind the message belongs to (migration 0022): picks the authority and the protocol. */
  doc_kind: Generated<string>;
  /** tpEvento of an event message; null for the other operations. */
  event_type: Generated<string | null>;
  /** A cancellation by substitution waits until this document (its replacement) is authorized. */
  waits_for_document_id: Generated<string | null>;
  /** 1 when an inutilização covers a single number (some answers settle only such a range). */
  single_number: Generated<number>;
  message: string;
  state: OutboxState;
  attempts: number;
  next_try_at: IsoTimestamp;
  last_error: string | null;
  last_c_stat: string | null;
  /** retEvento / retInutNFe exactly as received, and its protocol, once the authority answered. */
  answer_xml: Generated<string | null>;
  answer_n_prot: Generated<string | null>;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface ContingencyModesTable {
  company_id: string;
  modelo: number;
  mode: 'normal' | 'SVC-AN' | 'SVC-RS' | 'SVC-SP' | 'offline';
  since: IsoTimestamp;
  reason: string;
}

export interface Database {
  organizations: OrganizationsTable;
  companies: CompaniesTable;
  api_keys: ApiKeysTable;
  certificates: CertificatesTable;
  number_sequences: NumberSequencesTable;
  customers: CustomersTable;
  fiscal_profiles: FiscalProfilesTable;
  products: ProductsTable;
  documents: DocumentsTable;
  document_counts: DocumentCountsTable;
  outbox: OutboxTable;
  contingency_modes: ContingencyModesTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  printers: PrintersTable;
  print_jobs: PrintJobsTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  operator_authorizations: OperatorAuthorizationsTable;
  operator_actions: OperatorActionsTable;
  register_sessions: RegisterSessionsTable;
  register_movements: RegisterMovementsTable;
  register_voids: RegisterVoidsTable;
  ncm_tables: NcmTablesTable;
  ibpt_tables: IbptTablesTable;
  ibpt_rates: IbptRatesTable;
  services: ServicesTable;
}

/** A service the company sells (migration 0025), the catalogue of the NFS-e. */
export interface ServicesTable {
  id: string;
  company_id: string;
  codigo: string;
  descricao: string;
  /** cTribNac, 6 digits. */
  codigo_tributacao_nacional: string;
  /** ISS percent as decimal text with 2 places; null = the municipality's rate. */
  aliquota_iss: string | null;
  /** Default price as exact decimal text; null = typed on each note. */
  valor: string | null;
  /** IBS/CBS CST (3 digits), cClassTrib and cIndOp (6 digits) of the DPS; null = the default (migration 0026). */
  ibscbs_cst: string | null;
  c_class_trib: string | null;
  c_ind_op: string | null;
  /** PIS/COFINS CST (2 digits) written when the provider is outside the Simples; null = the default. */
  pis_cofins_cst: string | null;
  active: number;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

/** An NCM table the store imported (migration 0020); the newest is the one in use. */
export interface NcmTablesTable {
  id: string;
  versao: string;
  ato: string | null;
  origem: 'siscomex' | 'ibpt';
  quantidade: number;
  /** The sorted 8-digit codes written one after the other. */
  codigos: string;
  imported_at: IsoTimestamp;
}

/** A company's IBPT table (Lei 12.741/2012): the newest import is the one in use. */
export interface IbptTablesTable {
  id: string;
  company_id: string;
  uf: string;
  versao: string;
  chave: string;
  fonte: string;
  vigencia_inicio: string;
  vigencia_fim: string;
  quantidade: number;
  imported_at: IsoTimestamp;
}

export interface IbptRatesTable {
  table_id: string;
  codigo: string;
  ex: string;
  tipo: number;
  descricao: string;
  nacional_federal: string;
  importados_federal: string;
  estadual: string;
  municipal: string;
}

export interface WebhooksTable {
  id: string;
  company_id: string;
  url: string;
  /** JSON array of event names and wildcards. */
  events_json: string;
  ativo: number;
  descricao: string | null;
  permitir_rede_local: number;
  /** Signing secret sealed with the master key (secret-box format). */
  secret_enc: string;
  secret_rotated_at: IsoTimestamp | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

/** `in_flight` rows found at start were interrupted mid-send and are sent again (receivers dedupe by id). */
export type WebhookDeliveryStatus = 'pending' | 'in_flight' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  company_id: string;
  event: string;
  event_id: string;
  /** The exact JSON body that is signed and sent. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_try_at: IsoTimestamp | null;
  expires_at: IsoTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  redelivery_of: string | null;
  dedupe_key: string | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
  delivered_at: IsoTimestamp | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  started_at: IsoTimestamp;
  finished_at: IsoTimestamp | null;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  response_excerpt: string | null;
}

export interface PrintersTable {
  id: string;
  company_id: string;
  nome: string;
  tipo: 'rede' | 'usb' | 'serial';
  /** {host, porta} | {vendorId, productId} | {caminho, baudRate} (src-shared/contracts/printers.ts). */
  conexao_json: string;
  largura: number;
  qr: 'nativo' | 'raster';
  code_page: string;
  impressao_automatica: number;
  /** When automatic printing was last switched on; notes issued before it are not printed automatically. */
  auto_since: IsoTimestamp | null;
  padrao: number;
  /** Cash drawer on the printer's kick connector (migration 0016): ESC p on pin 2 or 5, pulse in ms. */
  gaveta_ativa: number;
  gaveta_pino: number;
  gaveta_pulso_ms: number;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

/** `printing` rows found at start were interrupted mid-send and go back to `pending`. */
export type PrintJobStatus = 'pending' | 'printing' | 'done' | 'failed' | 'cancelled';

export interface PrintJobsTable {
  id: string;
  company_id: string;
  printer_id: string | null;
  printer_nome: string;
  document_id: string | null;
  reason: 'auto' | 'print' | 'reprint' | 'test';
  /** What the bytes are (migration 0016): an NFC-e receipt, a test page, a generic ticket, a drawer kick. */
  kind: 'receipt' | 'test' | 'ticket' | 'drawer';
  /** The exact ESC/POS bytes sent to the printer. */
  bytes: Uint8Array;
  status: PrintJobStatus;
  attempts: number;
  last_error: string | null;
  next_try_at: IsoTimestamp | null;
  expires_at: IsoTimestamp;
  dedupe_key: string | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
  printed_at: IsoTimestamp | null;
}

export type OperatorRole = 'caixa' | 'supervisor' | 'gerente';

export interface OperatorsTable {
  id: string;
  company_id: string;
  codigo: string;
  nome: string;
  papel: OperatorRole;
  /** `scrypt$N$r$p$salt$hash`, never shown. */
  pin_hash: string;
  ativo: number;
  failed_pins: number;
  lock_count: number;
  bloqueado_ate: IsoTimestamp | null;
  created_at: IsoTimestamp;
  updated_at: IsoTimestamp;
}

export interface OperatorSessionsTable {
  id: string;
  token_hash: string;
  operator_id: string;
  caixa: string;
  created_at: IsoTimestamp;
  expires_at: IsoTimestamp;
  ended_at: IsoTimestamp | null;
}

export interface OperatorAuthorizationsTable {
  id: string;
  token_hash: string;
  supervisor_id: string;
  operator_id: string | null;
  acao: string;
  used_at: IsoTimestamp | null;
  expires_at: IsoTimestamp;
  document_id: string | null;
  created_at: IsoTimestamp;
}

export interface OperatorActionsTable {
  id: string;
  company_id: string;
  operator_id: string;
  acao: string;
  document_id: string | null;
  authorized_by: string | null;
  /** JSON text of what was done (values, items), for the audit. */
  detalhe: string | null;
  created_at: IsoTimestamp;
}

/** A cash register's shift: opened with a counted float, closed with a blind count (migration 0015). */
export interface RegisterSessionsTable {
  id: string;
  company_id: string;
  caixa: string;
  status: 'aberta' | 'fechada';
  opened_by: string;
  opened_at: IsoTimestamp;
  /** Exact decimal text. */
  fundo_troco: string;
  closed_by: string | null;
  closed_at: IsoTimestamp | null;
  /** JSON {metodo: "decimal"}: what the cashier counted, what was expected, and the shift report. */
  contagem: string | null;
  esperado: string | null;
  report: string | null;
}

export interface RegisterMovementsTable {
  id: string;
  session_id: string;
  tipo: 'suprimento' | 'sangria';
  valor: string;
  motivo: string;
  operator_id: string;
  authorized_by: string | null;
  print_job_id: string | null;
  created_at: IsoTimestamp;
}

export interface RegisterVoidsTable {
  id: string;
  session_id: string;
  tipo: 'item' | 'venda';
  descricao: string;
  valor: string;
  operator_id: string;
  authorized_by: string | null;
  created_at: IsoTimestamp;
}
