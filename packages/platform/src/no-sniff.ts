import type { RequestHandler } from 'express';

/**
 * Every JSON answer tells browsers not to guess its type: error bodies echo what the caller sent
 * (parameter and field names), which a browser that sniffed them as HTML would render. Each place
 * that writes answers (the Express skeleton, the error middleware, the start-up server, the answers
 * to requests the HTTP parser refused, the pixel) sends it.
 */
export const NO_SNIFF_HEADER = 'X-Content-Type-Options';
export const NO_SNIFF = 'nosniff';

/** Sets the header on every answer of an Express app, before any route writes one. */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader(NO_SNIFF_HEADER, NO_SNIFF);
  next();
};
