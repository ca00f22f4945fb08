import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'winston';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
    }
  }
}

const VALID_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Gives every request an id (a caller's X-Request-Id when sane) and logs one line when it ends (at LOG_LEVEL http, verbose, debug or silly). */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    // the line is built only when it is written: at a level that leaves http lines out (info, the
    // default) winston would make it, format it and drop it (a sixth of a millisecond per request)
    if (!logger.isLevelEnabled('http')) return next();
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.http('request', {
        request_id: req.id,
        method: req.method,
        path: req.originalUrl,
        status: res.statusCode,
        duration_ms: Math.round(ms * 10) / 10,
      });
    });
    next();
  };
}
