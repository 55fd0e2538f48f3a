// ApiError carries an HTTP status and the seed's error body; services throw it, the error middleware renders it.
import type { ErrorBody, ErrorCode, ErrorDetail } from '../../src-shared/contracts/errors.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly extra: Pick<ErrorBody, 'cStat' | 'xMotivo' | 'pending' | 'acao'>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details: ErrorDetail[] = [],
    extra: Pick<ErrorBody, 'cStat' | 'xMotivo' | 'pending' | 'acao'> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.extra = extra;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details, ...this.extra };
  }
}

export const validationError = (details: ErrorDetail[], message = 'The request has invalid fields.') =>
  new ApiError(400, 'validation_error', message, details);

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found.`);

export const forbidden = (message = 'This API key cannot access that resource.') =>
  new ApiError(403, 'forbidden', message);

export const conflict = (message: string, details: ErrorDetail[] = []) =>
  new ApiError(409, 'conflict', message, details);

export const invalidState = (current: string, action: string) =>
  new ApiError(409, 'invalid_state', `Cannot ${action} a document in state '${current}'.`, [
    { field: 'status', error: `current state is '${current}'` },
  ]);
