import type { RequestHandler, Response } from 'express';
import { RateLimitedError, ValidationError, asyncHandler, type TokenBuckets } from '@cm/platform';
import { apiKeyAuth, apiKeyOf } from '../../api-keys/api-key-auth';
import type { ApiKeyPrincipal, ApiKeyService } from '../../api-keys/api-key-service';
import { InFlightWork } from '../read/in-flight-work';
import { ReportAbortedError } from '../read/report-budget';
import { sendJson } from './json-answer';
import { jsonBody } from './json-body';
import type { KeyConcurrency } from './key-concurrency';
import { reportOutcome, type ReportMetrics } from './report-metrics';

/** What every read route shares: the key's auth, its rate and concurrency limits, the metrics and the body limit. */
export interface ReportGuardDeps {
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
 * The checks in front of a read (the report and the scorecard share one instance of each
 * limit, so a key's rate and its reports at once count both): measure, 401, 429 (rate, then
 * reads running for the key), only api_key in the query, then the JSON body.
 */
export function reportGuards(deps: ReportGuardDeps): RequestHandler[] {
  return [
    measure(deps.metrics),
    apiKeyAuth(deps.keys, deps.failures, deps.trustedProxyHops),
    rateLimit(deps.limiter),
    concurrent(deps.concurrency, deps.metrics),
    onlyApiKeyInQuery,
    ...jsonBody(deps.bodyLimit),
  ];
}

/** The use case a read route runs: the key, the body, an abort signal for a client gone, its database calls. */
type ReadUseCase = (key: ApiKeyPrincipal, body: unknown, signal: AbortSignal, work: InFlightWork) => Promise<unknown>;

/**
 * Runs the use case and answers its JSON (sendJson). A client that disconnects aborts it: no new query
 * starts, and the key's slot is free once the queries already sent have settled.
 */
export function trackedRead(run: ReadUseCase): RequestHandler {
  return asyncHandler(async (req, res) => {
    const work = workOf(res);
    // the client left while its body was read: nothing to run, the slot is already free
    if (work.closed) return;
    const gone = new AbortController();
    res.on('close', () => res.writableFinished || gone.abort());
    try {
      const answer = await work.track(run(apiKeyOf(req, res), req.body, gone.signal, work));
      // the answer is ready: the slot is free once its queries settled, not only after the client read it
      void work.close();
      sendJson(res, answer);
    } catch (err) {
      // nobody is left to answer: the work stopped, the socket is already closed
      if (err instanceof ReportAbortedError) res.destroy();
      else throw err;
    }
  });
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

function concurrent(concurrency: KeyConcurrency, metrics: ReportMetrics): RequestHandler {
  return (req, res, next) => {
    const release = concurrency.acquire(apiKeyOf(req, res).id);
    if (!release) {
      next(new RateLimitedError(1));
      return;
    }
    metrics.inFlight.inc();
    const work = new InFlightWork(() => {
      release();
      metrics.inFlight.dec();
    });
    res.locals[WORK] = work;
    // not on disconnect alone: a report whose client left may still have queries on the database
    res.on('close', () => void work.close());
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
