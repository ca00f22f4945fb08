import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'winston';
import {
  AppError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  errorBody,
} from './errors';
import { isDatabaseUnavailable } from './database-unavailable';
import { isStoreFullError } from './mongo';
import { NO_SNIFF, NO_SNIFF_HEADER } from './no-sniff';

/** Seconds a client waits after the database was unreachable: a restart or a failover takes a few. */
const DATABASE_RETRY_AFTER_S = 2;

/** body-parser and friends throw http-errors with a `type`; map them to our typed errors. */
function fromFrameworkError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new ValidationError('malformed request body', [{ field: 'body', message: 'is not valid JSON' }]);
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('unsupported body encoding or charset');
    case 'parameters.too.many':
      return new PayloadTooLargeError('too many form parameters');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ValidationError('incomplete or invalid request body');
  }
  // a write the database refused because its disk (or the stand-in's heap) is full: an operator's problem, said plainly
  if (isStoreFullError(err))
    return new UnavailableError('the database is full: it refuses writes until an operator frees space');
  // unreachable, failing over, out of time: on any path, a 503 the client may retry, never a 500
  if (isDatabaseUnavailable(err))
    return new UnavailableError('the database is unavailable, try again', DATABASE_RETRY_AFTER_S);
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(status, status === 404 ? 'not_found' : 'validation_error', 'bad request');
  }
  return undefined;
}

/** The single place that turns an error into the JSON error shape. Only 5xx are logged as errors. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = fromFrameworkError(err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // also when the app is not the service skeleton (which sets it on every answer)
    res.setHeader(NO_SNIFF_HEADER, NO_SNIFF);
    if (known) {
      if (known instanceof RateLimitedError || known instanceof UnavailableError)
        res.setHeader('Retry-After', String(known.retryAfterSeconds));
      if (known.status >= 500) {
        const cause = known === err ? undefined : err instanceof Error ? err.message : String(err);
        logger.error('request failed', {
          request_id: req.id,
          code: known.code,
          message: known.message,
          ...(cause ? { cause } : {}),
        });
      }
      res.status(known.status).json(errorBody(known));
      return;
    }
    logger.error('unhandled error', {
      request_id: req.id,
      method: req.method,
      path: req.path,
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    });
    res.status(500).json({ error: { code: 'internal', message: 'internal error' } });
  };
}

/** Unmatched routes get the same JSON shape as every other error. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new NotFoundError('no such endpoint'));
};
