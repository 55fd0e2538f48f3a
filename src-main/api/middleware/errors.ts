// Renders every failure in the seed's error body; unexpected errors are logged with a request id and
// answered without stack traces or SQL.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../logger.ts';
import { DomainError } from '../../errors.ts';
import { ApiError, fromDomainError } from '../errors.ts';

interface BodyParserError {
  type?: string;
  status?: number;
}

function fromBodyParser(error: unknown): ApiError | undefined {
  const type = (error as BodyParserError | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_json', 'The request body is not valid JSON.', [
        { field: 'body', error: (error as Error).message },
      ]);
    case 'entity.too.large':
      return new ApiError(413, 'payload_too_large', 'The request body is larger than the 1 MiB limit.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'The request body must be UTF-8 JSON.');
    case 'request.aborted':
      return new ApiError(400, 'invalid_json', 'The request body was not received completely.');
    default:
      return undefined;
  }
}

/** multer reports size and shape problems of multipart uploads with these codes. */
function fromMulter(error: unknown): ApiError | undefined {
  if (typeof error !== 'object' || error === null || (error as Error).name !== 'MulterError')
    return undefined;
  const { code, field } = error as { code: string; field?: string };
  if (code === 'LIMIT_FILE_SIZE')
    return new ApiError(413, 'payload_too_large', 'The uploaded file is too large.');
  return new ApiError(400, 'validation_error', 'The multipart upload is malformed.', [
    { field: field ?? 'body', error: (error as Error).message },
  ]);
}

/**
 * busboy (under multer) reports a multipart body it cannot read to the end with plain errors: a truncated
 * upload, a broken part header, a missing boundary, or the client going away mid-body.
 */
const MULTIPART_READ_ERRORS = new Set([
  'Unexpected end of form',
  'Unexpected end of file',
  'Malformed part header',
  'Multipart: Boundary not found',
  'Malformed content type',
  'Request aborted',
  'Request closed',
  'Request error',
]);

function fromMultipartRead(error: unknown, req: Request): ApiError | undefined {
  if (!(error instanceof Error) || error.constructor !== Error || !MULTIPART_READ_ERRORS.has(error.message))
    return undefined;
  if (req.is('multipart/form-data') === false) return undefined;
  return new ApiError(400, 'validation_error', 'The multipart upload is malformed or incomplete.', [
    { field: 'body', error: error.message },
  ]);
}

/**
 * Any other client error the body parser raises (http-errors marks them `expose`): a gzip or brotli body that
 * does not decompress, for one. The status it chose is kept when it is a 4xx the API documents.
 */
function fromOtherClientError(error: unknown): ApiError | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new ApiError(413, 'payload_too_large', 'The request body is too large.');
  if (status === 415)
    return new ApiError(415, 'unsupported_media_type', 'The request body must be UTF-8 JSON.');
  return new ApiError(400, 'invalid_json', 'The request body could not be read.', [
    { field: 'body', error: (error as Error).message },
  ]);
}

/** Express decodes path parameters itself and throws a URIError (status 400) on a bad `%` sequence. */
function fromBadPath(error: unknown): ApiError | undefined {
  if (!(error instanceof URIError)) return undefined;
  return new ApiError(400, 'validation_error', 'The request path is not valid percent-encoded UTF-8.', [
    { field: 'path', error: 'malformed percent-encoding' },
  ]);
}

/**
 * The store could not write because the disk holding the data (or SQLite's page limit) is full: better-sqlite3
 * reports it as SQLITE_FULL, PostgreSQL (server mode) as SQLSTATE 53100 disk_full; the transaction was rolled
 * back, so nothing of the request was kept. The code found, or undefined.
 */
export function storageFullCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || code === '53100') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isStorageFull(error: unknown): boolean {
  return storageFullCode(error) !== undefined;
}

const storageFull = () =>
  new ApiError(
    507,
    'insufficient_storage',
    'The disk holding the service data is full: the request was not saved. Free disk space and retry.',
  );

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new ApiError(404, 'not_found', `No route for ${req.method} ${req.path}.`));
}

export function errorHandler(logger: Logger) {
  // Express recognises error handlers by their four parameters.
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const known =
      error instanceof ApiError
        ? error
        : error instanceof DomainError
          ? fromDomainError(error)
          : (fromBodyParser(error) ??
            fromMulter(error) ??
            fromBadPath(error) ??
            fromMultipartRead(error, req) ??
            fromOtherClientError(error));
    const requestId = String(res.locals['requestId'] ?? '');
    // A route may have set its own type (XML, an image) before it failed: the error body is JSON all the same.
    if (!res.headersSent) res.type('application/json');
    if (known === undefined && isStorageFull(error)) {
      // The operator needs the cause in the log, not only the "cannot rollback" that may follow it.
      logger.error('disk full: a write to the database failed', {
        requestId,
        method: req.method,
        path: req.path,
        error: {
          name: (error as Error).name,
          code: storageFullCode(error),
          message: (error as Error).message,
        },
      });
      if (!res.headersSent) res.status(507).json(storageFull().toBody());
      else res.end();
      return;
    }
    if (known !== undefined) {
      for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
      res.status(known.status).json(known.toBody());
      return;
    }
    logger.error('unhandled error', {
      requestId,
      method: req.method,
      path: req.path,
      error:
        error instanceof Error
          ? { name: error.name, message: error.message, stack: error.stack }
          : String(error),
    });
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(500).json({
      error: 'internal_error',
      message: `Unexpected error; quote request id ${requestId} when reporting it.`,
      details: [],
      requestId,
    });
  };
}
