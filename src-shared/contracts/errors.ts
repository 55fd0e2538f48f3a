// The one error body of the /v1 API (seed §7), shared by the service, the renderer and the tests.
export type ErrorCode =
  | 'invalid_json'
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid_state'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'fiscal_rejection'
  | 'certificate_invalid'
  | 'rate_limited'
  | 'authority_unavailable'
  | 'internal_error';

export interface ErrorDetail {
  /** Path of the faulty field in the request, e.g. `itens[2].ncm`; `body` for the body itself. */
  field: string;
  error: string;
}

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details: ErrorDetail[];
  /** Only on 422 answers that come from a fiscal rule or the authority. */
  cStat?: string;
  xMotivo?: string;
  /** Only on 500 answers: the id to find the logged cause. */
  requestId?: string;
}

/** Formats a path the way integrators write it: `itens[2].ncm`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'body' : out;
}
