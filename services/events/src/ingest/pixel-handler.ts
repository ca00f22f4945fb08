import type http from 'node:http';
import { AppError, UnavailableError, ValidationError, type Logger } from '@cm/platform';
import type { IngestMetrics } from './ingest-metrics';
import type { PixelIngest } from './pixel-ingest';
import { parseParams, readBeaconBody, type RawParams } from './pixel-request';
import { sendError, sendGif, sendPreflight, sendRedirect } from './pixel-responses';
import type { OwnerLookup } from '../registry/owner-registry-watcher';
import { clientKey } from './client-address';
import { decideRedirect } from './redirect-target';

const UNAVAILABLE = new UnavailableError('event could not be stored, try again');
const REGISTRY_LOADING = new UnavailableError('the owner registry is still loading, try again');
const NOT_ALLOWED = new AppError(405, 'method_not_allowed', 'the pixel accepts GET, POST and OPTIONS');

export interface PixelHandlerDeps {
  ingest: PixelIngest;
  owners: OwnerLookup;
  metrics: IngestMetrics;
  logger: Logger;
  /** Trusted proxies in front of the ingest that append to X-Forwarded-For (0: none). */
  trustedProxyHops: number;
}

/**
 * `GET|POST /v1/v.gif` on plain node:http (the hot path; Express would cost most of its
 * throughput). Response rules, in order (CONVENTIONS section 4):
 * - `r` present but not an absolute http(s) URL to a host the owner allows (an unknown owner
 *   allows none): 400, no redirect, nothing stored; `r` not decidable yet (registry loading): 503;
 * - `r` allowed: 302 to it whatever happened to the event (invalid, rate limited, broker down),
 *   because a click must never break navigation;
 * - otherwise: stored, unknown owner or rate limited -> 200 GIF (alike, so the pixel reveals
 *   neither which owner ids exist nor who is being limited); invalid -> 400 naming the fields;
 *   broker down or slow -> 503.
 */
export function createPixelHandler(deps: PixelHandlerDeps): http.RequestListener {
  const { ingest, owners, metrics, logger, trustedProxyHops } = deps;
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse, params: RawParams, started: bigint) => {
    const redirect = decideRedirect(params.get('r'), params.get('owner_id'), owners);
    if (redirect.kind === 'refused') {
      metrics.count('bad_redirect');
      sendError(res, new ValidationError('invalid redirect target', [{ field: 'r', message: redirect.message }]));
      return;
    }
    if (redirect.kind === 'undecided') {
      metrics.count('unavailable');
      sendError(res, REGISTRY_LOADING, ['Retry-After', '1']);
      return;
    }
    const result = await ingest.record(params, req.headers['user-agent'], req.headers.referer, clientKey(req, trustedProxyHops));
    metrics.count(result.kind === 'stored' && result.bot ? 'bot' : result.kind);
    if (result.kind === 'rate_limited') metrics.limited(result.scope);
    else if (result.kind === 'unavailable') logger.debug('pixel event not stored', { reason: result.reason });
    if (redirect.kind === 'allowed') {
      metrics.redirected();
      sendRedirect(res, redirect.location);
    } else if (result.kind === 'stored' || result.kind === 'unknown_owner' || result.kind === 'rate_limited') {
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
