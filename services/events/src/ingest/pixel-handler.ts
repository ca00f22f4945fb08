import type http from 'node:http';
import { AppError, addressKey, type Logger } from '@cm/platform';
import { clientAddress } from './client-address';
import type { IngestMetrics, PixelResult } from './ingest-metrics';
import { decidePixelAnswer, sendAnswer, sendError, sendPreflight } from './pixel-answer';
import type { PixelIngest, PixelOutcome } from './pixel-ingest';
import { parseParams, readBeaconBody, type RawParams } from './pixel-request';

const NOT_ALLOWED = new AppError(405, 'method_not_allowed', 'the pixel accepts GET, POST and OPTIONS');

export interface PixelHandlerDeps {
  ingest: PixelIngest;
  metrics: IngestMetrics;
  logger: Logger;
  /** Trusted proxies in front of the ingest that append to X-Forwarded-For (0: none). */
  trustedProxyHops: number;
}

/** The result label of events_pixel_requests_total for one outcome. */
function resultOf(outcome: PixelOutcome): PixelResult {
  switch (outcome.kind) {
    case 'registry_loading':
      return 'unavailable';
    case 'stored':
      return outcome.bot ? 'bot' : 'stored';
    default:
      return outcome.kind;
  }
}

/**
 * `GET|POST /v1/v.gif` on plain node:http (the hot path; Express would cost most of its
 * throughput): reads the parameters, lets PixelIngest run the checks, and writes the answer
 * decidePixelAnswer picks for the outcome.
 */
export function createPixelHandler(deps: PixelHandlerDeps): http.RequestListener {
  const { ingest, metrics, logger, trustedProxyHops } = deps;
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse, params: RawParams, started: bigint) => {
    const address = clientAddress(req, trustedProxyHops);
    const outcome = await ingest.record(
      params,
      req.headers['user-agent'],
      req.headers.referer,
      addressKey(address),
      address,
    );
    const answer = decidePixelAnswer(outcome);
    metrics.count(resultOf(outcome));
    if (outcome.kind === 'rate_limited') metrics.limited(outcome.scope);
    else if (outcome.kind === 'unavailable') logger.debug('pixel event not stored', { reason: outcome.reason });
    if (answer.kind === 'redirect') metrics.redirected();
    sendAnswer(res, answer);
    // a refused or undecidable r is answered before any event work: kept out of the latency histogram
    if (outcome.kind !== 'bad_redirect' && outcome.kind !== 'registry_loading')
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
