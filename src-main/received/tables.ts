// Typed view of the received-notes tables (migration 2026_11_22_0006), added to the shared Database type
// locally with Kysely's withTables.
import type { Generated } from 'kysely';
import type { Db } from '../db/client.ts';

export type Situacao = 'autorizada' | 'denegada' | 'cancelada';
export type ManifestTipo = 'ciencia' | 'confirmacao' | 'desconhecimento' | 'nao_realizada';
export type ManifestState = 'pendente' | 'registrada' | 'rejeitada';

export interface ReceivedNotesTable {
  id: string;
  company_id: string;
  chave: string;
  emitente_cnpj: string | null;
  emitente_nome: string | null;
  emitente_ie: string | null;
  tp_nf: number | null;
  valor: string | null;
  dh_emi: string | null;
  situacao: Situacao;
  n_prot: string | null;
  dh_recbto: string | null;
  nsu: string;
  schema: string;
  xml: string;
  completa: number;
  manifestacao: ManifestTipo | null;
  manifestacao_status: ManifestState | null;
  created_at: string;
  updated_at: string;
}

export interface ReceivedEventsTable {
  id: Generated<number>;
  company_id: string;
  chave: string;
  tp_evento: string | null;
  n_seq_evento: number | null;
  nsu: string;
  schema: string;
  xml: string;
  created_at: string;
}

export interface ReceivedManifestationsTable {
  id: Generated<number>;
  company_id: string;
  received_note_id: string;
  tipo: ManifestTipo;
  tp_evento: string;
  justificativa: string | null;
  outbox_id: number;
  state: ManifestState;
  c_stat: string | null;
  x_motivo: string | null;
  created_at: string;
  updated_at: string;
}

export interface DistributionStateTable {
  company_id: string;
  ult_nsu: string;
  max_nsu: string;
  blocked_until: string | null;
  last_sync_at: string | null;
  last_c_stat: string | null;
  last_x_motivo: string | null;
  updated_at: string;
}

export type ReceivedTables = {
  received_notes: ReceivedNotesTable;
  received_events: ReceivedEventsTable;
  received_manifestations: ReceivedManifestationsTable;
  distribution_state: DistributionStateTable;
};

export const receivedDb = (db: Db) => db.withTables<ReceivedTables>();
