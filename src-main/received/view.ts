// The received note the API returns (GET /v1/nfe/received and /:id).
import type { ReceivedEventsTable, ReceivedManifestationsTable, ReceivedNotesTable } from './tables.ts';
import type { Selectable } from 'kysely';
import type { ReceivedNoteDetail, ReceivedNoteView } from '../../src-shared/contracts/documents.ts';

export type { ReceivedNoteDetail, ReceivedNoteView };

export function receivedView(row: ReceivedNotesTable): ReceivedNoteView {
  return {
    id: row.id,
    chave_acesso: row.chave,
    emitente: { cnpj: row.emitente_cnpj, nome: row.emitente_nome, ie: row.emitente_ie },
    tipo_operacao: row.tp_nf,
    valor_total: row.valor,
    dh_emissao: row.dh_emi,
    situacao: row.situacao,
    protocolo: row.n_prot,
    nsu: row.nsu,
    schema: row.schema,
    completa: row.completa === 1,
    manifestacao:
      row.manifestacao === null
        ? null
        : { tipo: row.manifestacao, status: row.manifestacao_status ?? 'pendente' },
    xml_url: `/v1/nfe/received/${row.id}/xml`,
    recebida_em: row.created_at,
    atualizada_em: row.updated_at,
  };
}

export function receivedDetail(
  row: ReceivedNotesTable,
  manifestations: (Selectable<ReceivedManifestationsTable> & { n_prot: string | null })[],
  events: Selectable<ReceivedEventsTable>[],
): ReceivedNoteDetail {
  return {
    ...receivedView(row),
    xml: row.xml,
    manifestacoes: manifestations.map((m) => ({
      tipo: m.tipo,
      tpEvento: m.tp_evento,
      status: m.state,
      cStat: m.c_stat,
      xMotivo: m.x_motivo,
      // Only a registered manifestation has a protocol of its own.
      protocolo: m.state === 'registrada' ? m.n_prot : null,
      justificativa: m.justificativa,
      criada_em: m.created_at,
    })),
    eventos: events.map((e) => ({
      tpEvento: e.tp_evento,
      nSeqEvento: e.n_seq_evento,
      nsu: e.nsu,
      schema: e.schema,
    })),
  };
}
