import type http from 'node:http';
import { errorBody, type AppError } from '@cm/platform';

/** The classic 1x1 transparent GIF89a (43 bytes). */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

const NO_STORE = 'no-store, no-cache, must-revalidate, private';

// Everything that can be decided once is decided here: header lists are flat arrays that
// writeHead copies without validating a header object per request.
const GIF_HEADERS = [
  'Content-Type', 'image/gif',
  'Content-Length', String(TRANSPARENT_GIF.length),
  'Cache-Control', NO_STORE,
  'Access-Control-Allow-Origin', '*',
];

const PREFLIGHT_HEADERS = [
  'Access-Control-Allow-Origin', '*',
  'Access-Control-Allow-Methods', 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers', 'Content-Type',
  'Access-Control-Max-Age', '86400',
  'Cache-Control', NO_STORE,
  'Content-Length', '0',
];

export function sendGif(res: http.ServerResponse): void {
  res.writeHead(200, GIF_HEADERS);
  res.end(TRANSPARENT_GIF);
}

export function sendRedirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, ['Location', location, 'Cache-Control', NO_STORE, 'Access-Control-Allow-Origin', '*', 'Content-Length', '0']);
  res.end();
}

export function sendPreflight(res: http.ServerResponse): void {
  res.writeHead(204, PREFLIGHT_HEADERS);
  res.end();
}

/** The one JSON error shape, readable by cross-origin callers too. */
export function sendError(res: http.ServerResponse, err: AppError, extraHeaders: string[] = []): void {
  const body = Buffer.from(JSON.stringify(errorBody(err)));
  res.writeHead(err.status, [
    'Content-Type', 'application/json; charset=utf-8',
    'Content-Length', String(body.length),
    'Cache-Control', NO_STORE,
    'Access-Control-Allow-Origin', '*',
    ...extraHeaders,
  ]);
  res.end(body);
}
