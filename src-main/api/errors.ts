// ApiError carries an HTTP status and the seed's error body; the API's own code throws it, and the error
// middleware renders it. Services throw DomainError (src-main/errors.ts), mapped to a status by fromDomainError.
import type { ErrorBody, ErrorCode, ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { DomainError } from '../errors.ts';

/**
 * A domain error whose status is already decided. It extends DomainError so that code catching a domain
 * failure by its code (a batch collecting every note's faults) treats both alike.
 */
export class ApiError extends DomainError {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details: ErrorDetail[] = [],
    extra: Pick<ErrorBody, 'cStat' | 'xMotivo' | 'pending' | 'acao'> = {},
    headers: Record<string, string> = {},
  ) {
    super(code, message, details, { extra });
    this.name = 'ApiError';
    this.status = status;
    this.headers = headers;
  }
}

export const validationError = (details: ErrorDetail[], message = 'The request has invalid fields.') =>
  new ApiError(400, 'validation_error', message, details);

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found.`);

export const forbidden = (message = 'This API key cannot access that resource.') =>
  new ApiError(403, 'forbidden', message);

export const conflict = (message: string, details: ErrorDetail[] = []) =>
  new ApiError(409, 'conflict', message, details);

/** 503 while the service starts (or when it could not): nothing of the request was done, it may be sent again. */
export const serviceStarting = (message: string) =>
  new ApiError(503, 'service_starting', message, [], {}, { 'Retry-After': '1' });

export const invalidState = (current: string, action: string) =>
  new ApiError(409, 'invalid_state', `Cannot ${action} a document in state '${current}'.`, [
    { field: 'status', error: `current state is '${current}'` },
  ]);

/** The HTTP status of each domain error code: the one place a service's failure becomes a status. */
const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_json: 400,
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  fiscal_rejection: 422,
  certificate_invalid: 422,
  rate_limited: 429,
  authority_unavailable: 503,
  insufficient_storage: 507,
  headers_too_large: 431,
  internal_error: 500,
  service_starting: 503,
  store_unavailable: 503,
  sem_impressora: 409,
  gaveta_desativada: 409,
  operador_nao_autenticado: 401,
  pin_invalido: 401,
  operador_bloqueado: 423,
  papel_insuficiente: 403,
  autorizacao_necessaria: 403,
  caixa_fechado: 409,
  caixa_ja_aberto: 409,
  psp_unavailable: 502,
  psp_rejection: 422,
  pix_nao_pago: 422,
};

/** The ApiError a domain error is answered with (a reason refines the status of a few codes). */
export function fromDomainError(error: DomainError): ApiError {
  let status = STATUS_OF_CODE[error.code];
  if (error.reason === 'timeout') status = 504;
  if (error.reason === 'unprocessable') status = 422;
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  return new ApiError(status, error.code, error.message, error.details, error.extra, headers);
}
