import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '@cm/platform';

/**
 * The report takes JSON only. A body of any other declared type is 415; no body at
 * all is `{}`, so validation names the missing fields instead of failing on undefined.
 */
export function jsonBody(limit: string): RequestHandler[] {
  const json = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
  const rejectOthers: RequestHandler = (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && req.body === undefined) {
      next(new UnsupportedMediaTypeError('send Content-Type: application/json'));
      return;
    }
    if (req.body === undefined) req.body = {};
    next();
  };
  return [json, rejectOthers];
}
