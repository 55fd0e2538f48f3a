// The domain errors every service raises: what went wrong in the seed's vocabulary (code, message, every
// faulty field), never an HTTP status. Only `api/` decides the status a code is answered with.
import type { ErrorBody, ErrorCode, ErrorDetail } from '../src-shared/contracts/errors.ts';

/** Extra members of the error body some failures carry (§7: a rejection's cStat, an approval's acao). */
export type ErrorExtra = Pick<ErrorBody, 'cStat' | 'xMotivo' | 'pending' | 'acao' | 'document'>;

/**
 * A few codes mean two different things at the transport level; the reason says which, so that `api/`
 * can keep answering them as before (a PSP that timed out is 504, one that failed is 502).
 */
export type ErrorReason = 'timeout' | 'unprocessable';

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly extra: ErrorExtra;
  /** Seconds the caller should wait before trying again (a locked operator, a rate limit). */
  readonly retryAfterSeconds: number | undefined;
  readonly reason: ErrorReason | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetail[] = [],
    options: { extra?: ErrorExtra; retryAfterSeconds?: number; reason?: ErrorReason } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.extra = options.extra ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.reason = options.reason;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details, ...this.extra };
  }
}

export const validationError = (details: ErrorDetail[], message = 'The request has invalid fields.') =>
  new DomainError('validation_error', message, details);

export const notFound = (what: string) => new DomainError('not_found', `${what} not found.`);

export const forbidden = (message = 'This API key cannot access that resource.') =>
  new DomainError('forbidden', message);

export const conflict = (message: string, details: ErrorDetail[] = []) =>
  new DomainError('conflict', message, details);

export const invalidState = (current: string, action: string) =>
  new DomainError('invalid_state', `Cannot ${action} a document in state '${current}'.`, [
    { field: 'status', error: `current state is '${current}'` },
  ]);

/** A rule of the authority caught before signing (§7): 422 with the cStat the authority would answer. */
export const fiscalRejection = (
  message: string,
  details: ErrorDetail[],
  rejection: { cStat: string; xMotivo: string },
) => new DomainError('fiscal_rejection', message, details, { extra: rejection });

/** The authority (`who`) refused a queued cancellation: 422 with its cStat and xMotivo on the caller's `field`. */
export const cancellationRefused = (who: string, field: string, cStat: string, xMotivo: string) =>
  fiscalRejection(
    `${who} refused the cancellation${cStat === '' ? '' : ` (${cStat})`}: ${xMotivo}.`,
    [{ field, error: cStat === '' ? xMotivo : `${cStat} ${xMotivo}` }],
    { cStat, xMotivo },
  );
