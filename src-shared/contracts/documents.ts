// The answers of the document routes (NF-e/NFC-e, received notes, the company's status), shared by the
// service that builds them and the clients (the renderer's api-client, other TypeScript POS) that read them.
import { z } from 'zod';
import { ambienteSchema, timestampSchema } from './common.ts';
import { operatorRefSchema } from './operators.ts';

const decimalNumber = z.number().meta({
  description: 'Money as a JSON number, computed in exact decimals (at most 13 integer and 2 decimal digits)',
});

/**
 * GET /v1/nfe/:id and /v1/nfce/:id: the fields the specification names (§2.5, §2.6: `total_nota`,
 * `icms_total`, `created_at`, `qr_code_url`, `total_cupom`, `escpos_url`, and the list entries' `total`,
 * `emitida_em`), then Balcão's own: the authority's answer, totals as exact decimal text, items, links.
 */
export const documentViewSchema = z.object({
  id: z.uuid(),
  modelo: z.number().int(),
  serie: z.number().int(),
  numero: z.number().int(),
  status: z.string().meta({
    description:
      'rascunho, processando (also while a cancellation is being sent), contingencia, autorizada, erro, denegada, cancelada, substituida, inutilizada',
  }),
  ambiente: ambienteSchema,
  tipo_emissao: z.number().int(),
  chave_acesso: z.string(),
  protocolo: z.string().nullable(),
  autorizada_em: z.string().nullable(),
  total_nota: decimalNumber,
  icms_total: decimalNumber,
  created_at: z.string(),
  danfe_url: z.string(),
  xml_url: z.string(),
  /** NFC-e only (§2.6). */
  total_cupom: decimalNumber.optional(),
  qr_code_url: z.string().nullable().optional(),
  escpos_url: z.string().optional(),
  /** NFC-e list entries (§2.6): the total and the issue time. */
  total: decimalNumber.optional(),
  emitida_em: z.string().optional(),
  /** On the answers of create, PUT and send: what happened and what to do next. */
  message: z.string().optional(),
  dh_emissao: z.string(),
  valor_total: z.string().meta({ description: 'vNF as exact decimal text' }),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  mensagens: z.array(z.object({ cStat: z.string(), xMotivo: z.string() })),
  qr_code: z.string().nullable(),
  url_chave: z.string().nullable(),
  substitui: z.string().nullable(),
  substituida_por: z.string().nullable(),
  /** The operator who sold it at the register (issue 13); null for notes of software without an operator. */
  operador: operatorRefSchema.nullable(),
  /** Every ICMSTot value as exact decimal text (vProd, vICMS, vNF, ...). */
  totais: z.record(z.string(), z.string()),
  itens: z.array(
    z.object({
      nItem: z.number().int(),
      codigo: z.string().nullable(),
      descricao: z.string().nullable(),
      ncm: z.string().nullable(),
      cfop: z.string().nullable(),
      quantidade: z.string().nullable(),
      valor_unitario: z.string().nullable(),
      valor_total: z.string().nullable(),
    }),
  ),
  criada_em: z.string(),
  atualizada_em: z.string(),
});
export type DocumentView = z.infer<typeof documentViewSchema>;

/** GET /v1/nfe/received and /v1/nfe/received/:id: a note addressed to the company (NFeDistribuicaoDFe). */
export const receivedNoteViewSchema = z.object({
  id: z.string(),
  chave_acesso: z.string(),
  emitente: z.object({ cnpj: z.string().nullable(), nome: z.string().nullable(), ie: z.string().nullable() }),
  tipo_operacao: z.number().int().nullable(),
  valor_total: z.string().nullable(),
  dh_emissao: timestampSchema.nullable(),
  situacao: z.enum(['autorizada', 'denegada', 'cancelada']),
  protocolo: z.string().nullable(),
  nsu: z.string(),
  schema: z.string(),
  /** true once the whole NF-e (procNFe) arrived; before that only the summary (resNFe) is known. */
  completa: z.boolean(),
  manifestacao: z.object({ tipo: z.string(), status: z.string() }).nullable(),
  xml_url: z.string(),
  recebida_em: timestampSchema,
  atualizada_em: timestampSchema,
});
export type ReceivedNoteView = z.infer<typeof receivedNoteViewSchema>;

export const receivedNoteDetailSchema = receivedNoteViewSchema.extend({
  xml: z.string(),
  manifestacoes: z.array(
    z.object({
      tipo: z.string(),
      tpEvento: z.string(),
      status: z.string(),
      cStat: z.string().nullable(),
      xMotivo: z.string().nullable(),
      /** The event's protocol (nProt of retEvento) once registered. */
      protocolo: z.string().nullable(),
      justificativa: z.string().nullable(),
      criada_em: timestampSchema,
    }),
  ),
  eventos: z.array(
    z.object({
      tpEvento: z.string().nullable(),
      nSeqEvento: z.number().int().nullable(),
      nsu: z.string(),
      schema: z.string(),
    }),
  ),
});
export type ReceivedNoteDetail = z.infer<typeof receivedNoteDetailSchema>;

/** The word of `manifest_status` for each manifestation type (seed §2.9: `confirmada` for `confirmacao`). */
export const MANIFEST_STATUS_OF = {
  ciencia: 'ciente',
  confirmacao: 'confirmada',
  desconhecimento: 'desconhecida',
  nao_realizada: 'nao_realizada',
} as const;

/**
 * The manifestation result (seed §2.9) of POST /v1/nfe/received/:id/manifest: 200 once the authority
 * registered the event, 202 while it is still on its way (`status` `pendente`, `protocolo` and `cStat` null).
 */
export const manifestationResultSchema = z.object({
  /** The received note's id (the `:id` of the path). */
  id: z.string(),
  manifest_status: z.enum(['ciente', 'confirmada', 'desconhecida', 'nao_realizada']),
  /** The event's protocol (nProt of retEvento) once registered. */
  protocolo: z.string().nullable(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  tipo: z.enum(['ciencia', 'confirmacao', 'desconhecimento', 'nao_realizada']),
  tpEvento: z.enum(['210200', '210210', '210220', '210240']),
  status: z.enum(['pendente', 'registrada', 'rejeitada']),
  chave_acesso: z.string(),
  criada_em: timestampSchema,
});
export type ManifestationResult = z.infer<typeof manifestationResultSchema>;

/** GET /v1/companies/:id/status: what the cashier's status bar shows. */
export const companyStatusSchema = z.object({
  ambiente: ambienteSchema,
  autoridade: z.object({
    modo: z.enum(['normal', 'SVC-AN', 'SVC-RS', 'SVC-SP', 'offline']),
    /** false while new NFC-e are issued offline (tpEmis 9) because the authority did not answer. */
    online: z.boolean(),
    /** When the contingency in force began; null in normal mode. */
    desde: timestampSchema.nullable(),
    motivo: z.string().nullable(),
  }),
  fila: z.object({
    /** Queue rows not yet delivered and settled (pending, in flight, or waiting for a consultation). */
    pendentes: z.number().int(),
    /** NFC-e issued offline, still waiting for their authorization. */
    contingencia: z.number().int(),
  }),
  certificado: z.object({ validoAte: timestampSchema, diasParaExpirar: z.number().int() }).nullable(),
});
export type CompanyStatus = z.infer<typeof companyStatusSchema>;

/** Document states (seed §3); `contingencia` = NFC-e issued offline (tpEmis 9), waiting to be transmitted. */
export const DOCUMENT_STATUSES = [
  'rascunho',
  'processando',
  'contingencia',
  'autorizada',
  'erro',
  'denegada',
  'cancelada',
  'substituida',
  'inutilizada',
] as const;
export const documentStatusSchema = z.enum(DOCUMENT_STATUSES);
export type DocumentStatus = z.infer<typeof documentStatusSchema>;

/** A note's event (CC-e, cancellation) as the queue settled it. */
export const eventStatusSchema = z.enum(['processando', 'registrada', 'rejeitada']);
export type EventStatus = z.infer<typeof eventStatusSchema>;

/** What an event of any document kind is and how the authority settled it (the NF-e and CT-e event views). */
export const eventOutcomeShape = {
  tpEvento: z.string(),
  descricao: z.string(),
  sequencia: z.number().int(),
  status: eventStatusSchema,
  protocolo: z.string().nullable(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  /** What was asked: justificativa (cancellations), correcao (NF-e CC-e) or correcoes (CT-e CC-e, as sent). */
  detalhes: z.record(z.string(), z.unknown()),
};

/** GET /v1/nfe/:id/events. */
export const eventViewSchema = z.object({
  id: z.string(),
  nfeId: z.string(),
  ...eventOutcomeShape,
  criada_em: timestampSchema,
  registrada_em: timestampSchema.nullable(),
});
export type EventView = z.infer<typeof eventViewSchema>;

/**
 * The CC-e result (seed §2.9): POST /v1/nfe/:id/correction-letter (202) and GET /v1/nfe/:id/correction-letters.
 * `protocolo_cce`, `cStat`, `xMotivo` and `registrada_em` are null while the letter is `processando`.
 */
export const correctionLetterViewSchema = z.object({
  id: z.string(),
  sequencia: z.number().int(),
  /** The event's protocol (nProt of retEvento) once registered. */
  protocolo_cce: z.string().nullable(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  registrada_em: timestampSchema.nullable(),
  nfeId: z.string(),
  status: eventStatusSchema,
  /** The text as sent (normalized to what the layout allows: Latin-1, single spaces). */
  correcao: z.string(),
  criada_em: timestampSchema,
});
export type CorrectionLetterView = z.infer<typeof correctionLetterViewSchema>;

/** `inutilizada` once the authority homologated the range (102, or 563 for a repeat of a voided one). */
export const voidStatusSchema = z.enum(['processando', 'inutilizada', 'rejeitada']);
export type VoidStatus = z.infer<typeof voidStatusSchema>;

/** The number void result (seed §2.9): POST /v1/nfe/inutilizar (200) and GET /v1/nfe/inutilizar/:id. */
export const voidResultSchema = z.object({
  status: voidStatusSchema,
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  /** The authority's protocol (nProt of retInutNFe) once homologated. */
  protocolo: z.string().nullable(),
  id: z.string(),
  success: z.boolean(),
  modelo: z.number().int(),
  serie: z.number().int(),
  numeroInicial: z.number().int(),
  numeroFinal: z.number().int(),
  /** Drafts whose number this request voided. */
  documentos: z.array(z.string()),
  criada_em: timestampSchema,
});
export type VoidResult = z.infer<typeof voidResultSchema>;

/** GET /v1/nfe/batch/:batchId. */
export const batchProgressSchema = z.object({
  batchId: z.string(),
  total: z.number().int(),
  autorizadas: z.number().int(),
  rejeitadas: z.number().int(),
  processando: z.number().int(),
  status: z.enum(['processando', 'concluido']),
  notas: z.array(
    z.object({
      id: z.string(),
      numero: z.number().int(),
      status: documentStatusSchema,
      chave_acesso: z.string(),
      cStat: z.string().nullable(),
      xMotivo: z.string().nullable(),
    }),
  ),
});
export type BatchProgress = z.infer<typeof batchProgressSchema>;
