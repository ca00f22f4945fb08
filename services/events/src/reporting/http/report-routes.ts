import { Router, type RequestHandler, type Response } from 'express';
import { RateLimitedError, ValidationError, asyncHandler, type TokenBuckets } from '@cm/platform';
import { apiKeyAuth, apiKeyOf } from '../../api-keys/api-key-auth';
import type { ApiKeyService } from '../../api-keys/api-key-service';
import { InFlightWork } from '../read/in-flight-work';
import { jsonBody } from './json-body';
import type { KeyConcurrency } from './key-concurrency';
import { ReportAbortedError } from '../read/report-budget';
import { reportOutcome, type ReportMetrics } from './report-metrics';
import type { ReportService } from './report-service';

export interface ReportRouteDeps {
  reports: ReportService;
  keys: ApiKeyService;
  /** Failed API key lookups per client address. */
  failures?: TokenBuckets;
  /** Trusted proxies in front that append the client address to X-Forwarded-For (PIXEL_TRUSTED_PROXY_HOPS). */
  trustedProxyHops: number;
  limiter: TokenBuckets;
  concurrency: KeyConcurrency;
  metrics: ReportMetrics;
  bodyLimit: string;
}

/**
 * `POST /api/v1/events/?api_key=KEY` (trailing slash optional). Order: 401, 429 (rate,
 * then reports running for the key), then the body. A client that disconnects aborts its report:
 * no new query starts, and the key's slot is free once the queries already sent have settled.
 */
export function reportRoutes(deps: ReportRouteDeps): Router {
  const router = Router();
  router.post(
    '/api/v1/events',
    measure(deps.metrics),
    apiKeyAuth(deps.keys, deps.failures, deps.trustedProxyHops),
    rateLimit(deps.limiter),
    concurrent(deps.concurrency),
    onlyApiKeyInQuery,
    ...jsonBody(deps.bodyLimit),
    asyncHandler(async (req, res) => {
      const work = workOf(res);
      // the client left while its body was read: nothing to run, the slot is already free
      if (work.closed) return;
      const gone = new AbortController();
      res.on('close', () => res.writableFinished || gone.abort());
      try {
        res.json(await work.track(deps.reports.report(apiKeyOf(req, res), req.body, gone.signal, work)));
      } catch (err) {
        // nobody is left to answer: the work stopped, the socket is already closed
        if (err instanceof ReportAbortedError) res.destroy();
        else throw err;
      }
    }),
  );
  return router;
}

function measure(metrics: ReportMetrics): RequestHandler {
  return (_req, res, next) => {
    const end = metrics.duration.startTimer();
    res.on('finish', () => {
      const outcome = reportOutcome(res.statusCode);
      end({ outcome });
      metrics.reports.inc({ outcome });
    });
    next();
  };
}

function rateLimit(limiter: TokenBuckets): RequestHandler {
  return (req, res, next) => {
    const decision = limiter.take(apiKeyOf(req, res).id);
    next(decision.allowed ? undefined : new RateLimitedError(decision.retryAfterSeconds));
  };
}

function concurrent(concurrency: KeyConcurrency): RequestHandler {
  return (req, res, next) => {
    const release = concurrency.acquire(apiKeyOf(req, res).id);
    if (!release) {
      next(new RateLimitedError(1));
      return;
    }
    const work = new InFlightWork();
    res.locals[WORK] = work;
    // not on disconnect alone: a report whose client left may still have queries on the database
    res.on('close', () => void work.close().then(release));
    next();
  };
}

const WORK = 'reportWork';

function workOf(res: Response): InFlightWork {
  return res.locals[WORK] as InFlightWork;
}

/** The query string carries the key only; filters belong in the body, so anything else is a mistake worth a 400. */
const onlyApiKeyInQuery: RequestHandler = (req, _res, next) => {
  const unknown = Object.keys(req.query).filter((k) => k !== 'api_key');
  next(
    unknown.length === 0
      ? undefined
      : new ValidationError(
          'invalid query',
          unknown.map((field) => ({ field: field.slice(0, 64), message: 'is not an allowed query parameter' })),
        ),
  );
};
