// Renders every failure in the seed's error body; unexpected errors are logged with a request id and
// answered without stack traces or SQL.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../logger.ts';
import { ApiError } from '../errors.ts';

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

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new ApiError(404, 'not_found', `No route for ${req.method} ${req.path}.`));
}

export function errorHandler(logger: Logger) {
  // Express recognises error handlers by their four parameters.
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const known = error instanceof ApiError ? error : (fromBodyParser(error) ?? fromMulter(error));
    const requestId = String(res.locals['requestId'] ?? '');
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
