import type http from 'node:http';
import { AppError, NO_SNIFF, NO_SNIFF_HEADER, UnavailableError, ValidationError, errorBody } from '@cm/platform';
import type { PixelOutcome } from './pixel-ingest';

/** The HTTP answer to one pixel hit. `headers`: extra headers of an error answer. */
export type PixelAnswer =
  { kind: 'gif' } | { kind: 'redirect'; location: string } | { kind: 'error'; error: AppError; headers: string[] };

const RETRY_SOON = ['Retry-After', '1'];
const GIF: PixelAnswer = { kind: 'gif' };
const UNAVAILABLE: PixelAnswer = {
  kind: 'error',
  error: new UnavailableError('event could not be stored, try again'),
  headers: RETRY_SOON,
};
const REGISTRY_LOADING: PixelAnswer = {
  kind: 'error',
  error: new UnavailableError('the owner registry is still loading, try again'),
  headers: RETRY_SOON,
};
const NO_HEADERS: string[] = [];

/**
 * The answer rules of the pixel, all of them:
 * - `r` refused (not an absolute http(s) URL to a host the owner allows; an unknown owner allows
 *   none): 400 naming `r`, no redirect, nothing stored; `r` not decidable yet (registry loading): 503;
 * - `r` allowed: 302 to it whatever happened to the event (invalid, rate limited, broker down),
 *   because a click must never break navigation;
 * - otherwise: stored, unknown owner or rate limited -> 200 GIF (alike, so the pixel reveals
 *   neither which owner ids exist nor who is being limited); invalid -> 400 naming the fields;
 *   broker down or slow, registry not loaded -> 503.
 */
export function decidePixelAnswer(outcome: PixelOutcome): PixelAnswer {
  switch (outcome.kind) {
    case 'bad_redirect':
      return {
        kind: 'error',
        error: new ValidationError('invalid redirect target', [{ field: 'r', message: outcome.message }]),
        headers: NO_HEADERS,
      };
    case 'registry_loading':
      return REGISTRY_LOADING;
  }
  if (outcome.redirect !== undefined) return { kind: 'redirect', location: outcome.redirect };
  switch (outcome.kind) {
    case 'stored':
    case 'unknown_owner':
    case 'rate_limited':
      return GIF;
    case 'invalid':
      return { kind: 'error', error: outcome.error, headers: NO_HEADERS };
    case 'unavailable':
      return UNAVAILABLE;
  }
}

/** Writes what decidePixelAnswer decided. */
export function sendAnswer(res: http.ServerResponse, answer: PixelAnswer): void {
  if (answer.kind === 'gif') sendGif(res);
  else if (answer.kind === 'redirect') sendRedirect(res, answer.location);
  else sendError(res, answer.error, answer.headers);
}

/** The classic 1x1 transparent GIF89a (43 bytes). */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

const NO_STORE = 'no-store, no-cache, must-revalidate, private';

// Everything that can be decided once is decided here: header lists are flat arrays that
// writeHead copies without validating a header object per request.
const GIF_HEADERS = [
  'Content-Type',
  'image/gif',
  'Content-Length',
  String(TRANSPARENT_GIF.length),
  'Cache-Control',
  NO_STORE,
  'Access-Control-Allow-Origin',
  '*',
];

const PREFLIGHT_HEADERS = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Allow-Methods',
  'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers',
  'Content-Type',
  'Access-Control-Max-Age',
  '86400',
  'Cache-Control',
  NO_STORE,
  'Content-Length',
  '0',
];

function sendGif(res: http.ServerResponse): void {
  res.writeHead(200, GIF_HEADERS);
  res.end(TRANSPARENT_GIF);
}

function sendRedirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, [
    'Location',
    location,
    'Cache-Control',
    NO_STORE,
    'Access-Control-Allow-Origin',
    '*',
    'Content-Length',
    '0',
  ]);
  res.end();
}

export function sendPreflight(res: http.ServerResponse): void {
  res.writeHead(204, PREFLIGHT_HEADERS);
  res.end();
}

/** The one JSON error shape, readable by cross-origin callers too, never sniffed as another type (it echoes parameter names). */
export function sendError(res: http.ServerResponse, err: AppError, extraHeaders: string[] = []): void {
  const body = Buffer.from(JSON.stringify(errorBody(err)));
  res.writeHead(err.status, [
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(body.length),
    'Cache-Control',
    NO_STORE,
    NO_SNIFF_HEADER,
    NO_SNIFF,
    'Access-Control-Allow-Origin',
    '*',
    ...extraHeaders,
  ]);
  res.end(body);
}
