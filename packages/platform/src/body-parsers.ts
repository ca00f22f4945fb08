import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from './errors';

export interface BodyParserOptions {
  /** e.g. '100kb'; larger bodies are answered 413. */
  limit: string;
}

/**
 * JSON and form-encoded bodies, as the management API accepts them. Any other declared content
 * type on a request with a body is 415; a request without a body gets `{}` so handlers never see undefined.
 */
export function bodyParsers(opts: BodyParserOptions): RequestHandler[] {
  const json = express.json({
    limit: opts.limit,
    strict: true,
    type: ['application/json', 'application/*+json'],
    reviver: refuseProtoKeys,
  });
  const form = express.urlencoded({ limit: opts.limit, extended: false, parameterLimit: 200 });
  const rejectOthers: RequestHandler = (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && req.body === undefined && req.headers['content-type']) {
      next(new UnsupportedMediaTypeError('send application/json or application/x-www-form-urlencoded'));
      return;
    }
    if (req.body === undefined) req.body = {};
    next();
  };
  return [json, form, rejectOthers];
}

/** `__proto__` survives JSON.parse as an own key and is then skipped by schema validation; refuse it outright. */
function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('__proto__ is not an allowed key');
  return value;
}

/** Form bodies carry only strings, so they are validated with type conversion; JSON is validated strictly. */
export function isFormBody(req: express.Request): boolean {
  return req.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}
