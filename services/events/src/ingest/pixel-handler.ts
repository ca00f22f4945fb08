import type http from 'node:http';
import { AppError, UnavailableError, ValidationError, type Logger } from '@cm/platform';
import { readBeaconBody } from './beacon-body';
import type { IngestMetrics } from './ingest-metrics';
import type { PixelIngest } from './pixel-ingest';
import { parseParams, type RawParams } from './pixel-params';
import { sendError, sendGif, sendPreflight, sendRedirect } from './pixel-responses';
import { checkRedirectTarget } from './redirect-target';

export const PIXEL_PATH = '/v1/v.gif';

/** True for `/v1/v.gif` with or without a query string: the only path served outside Express. */
export function isPixelRequest(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(PIXEL_PATH) && (url.length === PIXEL_PATH.length || url.charCodeAt(PIXEL_PATH.length) === 63 /* ? */);
}

const UNAVAILABLE = new UnavailableError('event could not be stored, try again');
const NOT_ALLOWED = new AppError(405, 'method_not_allowed', 'the pixel accepts GET, POST and OPTIONS');

/**
 * `GET|POST /v1/v.gif` on plain node:http (the hot path; Express would cost most of its
 * throughput). Response rules, in order:
 * - `r` present but not an absolute http(s) URL: 400, nothing stored;
 * - `r` valid: 302 to it whatever happened to the event (invalid, unknown owner, broker down),
 *   because a click must never break navigation;
 * - otherwise: stored or unknown owner -> 200 GIF (alike, so the pixel does not reveal which
 *   owner ids exist); invalid -> 400 naming the fields; broker down or slow -> 503.
 */
export function createPixelHandler(ingest: PixelIngest, metrics: IngestMetrics, logger: Logger): http.RequestListener {
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse, params: RawParams, started: bigint) => {
    const r = params.get('r');
    let location: string | undefined;
    if (r !== undefined) {
      const check = typeof r === 'string' ? checkRedirectTarget(r) : { ok: false as const, message: 'must be given once' };
      if (!check.ok) {
        metrics.count('bad_redirect');
        sendError(res, new ValidationError('invalid redirect target', [{ field: 'r', message: `r ${check.message}` }]));
        return;
      }
      location = check.location;
    }
    const result = await ingest.record(params, req.headers['user-agent'], req.headers.referer);
    metrics.count(result.kind === 'stored' && result.bot ? 'bot' : result.kind);
    if (result.kind === 'unavailable') logger.debug('pixel event not stored', { reason: result.reason });
    if (location !== undefined) {
      metrics.redirected();
      sendRedirect(res, location);
    } else if (result.kind === 'stored' || result.kind === 'unknown_owner') {
      sendGif(res);
    } else if (result.kind === 'invalid') {
      sendError(res, result.error);
    } else {
      sendError(res, UNAVAILABLE, ['Retry-After', '1']);
    }
    metrics.observe(Number(process.hrtime.bigint() - started) / 1e9);
  };

  const fail = (res: http.ServerResponse, err: unknown) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof AppError) {
      sendError(res, err);
      return;
    }
    logger.error('pixel request failed', { error: err instanceof Error ? err.message : String(err) });
    sendError(res, new AppError(500, 'internal', 'internal error'));
  };

  return (req, res) => {
    const started = process.hrtime.bigint();
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query = q === -1 ? '' : url.slice(q + 1);
    if (req.method === 'GET') {
      respond(req, res, parseParams(query), started).catch((err: unknown) => fail(res, err));
    } else if (req.method === 'POST') {
      readBeaconBody(req)
        .then((body) => respond(req, res, parseParams(body, parseParams(query)), started))
        .catch((err: unknown) => fail(res, err));
    } else if (req.method === 'OPTIONS') {
      sendPreflight(res);
    } else {
      req.resume();
      sendError(res, NOT_ALLOWED, ['Allow', 'GET, POST, OPTIONS']);
    }
  };
}
