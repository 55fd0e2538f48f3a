// The one error body of the /v1 API (seed §7), shared by the service, the renderer and the tests.
import { z } from 'zod';

export const ERROR_CODES = [
  'invalid_json',
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'invalid_state',
  'payload_too_large',
  'unsupported_media_type',
  'fiscal_rejection',
  'certificate_invalid',
  'rate_limited',
  'authority_unavailable',
  /** 507: the disk holding the service's data is full (SQLite could not write). */
  'insufficient_storage',
  /** 431: the request line or headers are larger than the server accepts. */
  'headers_too_large',
  'internal_error',
  /** 503: the service is still starting (or could not start); nothing of the request was done. */
  'service_starting',
  /**
   * 503, server mode: this instance cannot hold its lease in the PostgreSQL store (the database does not
   * answer); nothing of the request was done.
   */
  'store_unavailable',
  /** 409: nothing to print on: no printer named and the company has no default printer (issue 13). */
  'sem_impressora',
  /** 409: the printer's cash drawer is switched off (gaveta.ativa false). */
  'gaveta_desativada',
  /** 401: X-Operator-Token unknown, expired or signed out (issue 13). */
  'operador_nao_autenticado',
  /** 401: wrong PIN, or an unknown or inactive operator code. */
  'pin_invalido',
  /** 423: too many wrong PINs; the message names until when. */
  'operador_bloqueado',
  /** 403: the operator's role cannot approve that action. */
  'papel_insuficiente',
  /** 403: the operator's role needs a supervisor's approval (X-Supervisor-Authorization) for `acao`. */
  'autorizacao_necessaria',
  /** 409: a signed-in operator's sale, movement or closing on a register that has no open session. */
  'caixa_fechado',
  /** 409: opening a register that already has an open session. */
  'caixa_ja_aberto',
  /** 502/504: the store's PIX PSP did not answer, failed, or refused the store's credentials. */
  'psp_unavailable',
  /** 422: the PSP refused the PIX charge (its problem body in `message`). */
  'psp_rejection',
  /** 422: a payment names a PIX charge that is not paid (CONCLUIDA) for its amount. */
  'pix_nao_pago',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorDetailSchema = z.object({
  /** Path of the faulty field in the request, e.g. `itens[2].ncm`; `body` for the body itself. */
  field: z.string().meta({ description: 'Path of the faulty field in the request, e.g. `itens[2].ncm`' }),
  error: z.string(),
});
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

export const errorBodySchema = z.object({
  error: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.array(errorDetailSchema),
  /** Only on 422 answers that come from a fiscal rule or the authority. */
  cStat: z.string().optional(),
  xMotivo: z.string().optional(),
  /** Only on 500 answers: the id to find the logged cause. */
  requestId: z.string().optional(),
  /**
   * Only on a 502 for a request the service keeps and retries by itself (an inutilização): its id, its
   * state and where to follow it until the authority answers.
   */
  pending: z.object({ id: z.string(), status: z.literal('processando'), url: z.string() }).optional(),
  /**
   * Only on a 422 `fiscal_rejection` of a document that was kept (an NFS-e the national environment refused
   * stays in `erro`, to be corrected with PUT and sent again): its id, its state and where to read it.
   */
  document: z.object({ id: z.string(), status: z.string(), url: z.string() }).optional(),
  /** Only on 403 `autorizacao_necessaria`: the action a supervisor must approve (POST /v1/operators/authorize). */
  acao: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Formats a path the way integrators write it: `itens[2].ncm`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'body' : out;
}
