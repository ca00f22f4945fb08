import { Router, type RequestHandler } from 'express';
import { RateLimitedError, ValidationError, asyncHandler } from '@cm/platform';
import { apiKeyAuth, apiKeyOf } from '../api-keys/api-key-auth';
import type { ApiKeyService } from '../api-keys/api-key-service';
import { jsonBody } from './json-body';
import type { KeyRateLimiter } from './key-rate-limiter';
import { reportOutcome, type ReportMetrics } from './report-metrics';
import type { ReportService } from './report-service';

export interface ReportRouteDeps {
  reports: ReportService;
  keys: ApiKeyService;
  limiter: KeyRateLimiter;
  metrics: ReportMetrics;
  bodyLimit: string;
}

/** Spec 4.8: `POST /api/v1/events/?api_key=KEY` (trailing slash optional). Order: 401, 429, then the body. */
export function reportRoutes(deps: ReportRouteDeps): Router {
  const router = Router();
  router.post(
    '/api/v1/events',
    measure(deps.metrics),
    apiKeyAuth(deps.keys),
    rateLimit(deps.limiter),
    onlyApiKeyInQuery,
    ...jsonBody(deps.bodyLimit),
    asyncHandler(async (req, res) => {
      res.json(await deps.reports.report(apiKeyOf(req, res), req.body));
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

function rateLimit(limiter: KeyRateLimiter): RequestHandler {
  return (req, res, next) => {
    const decision = limiter.take(apiKeyOf(req, res).id);
    next(decision.allowed ? undefined : new RateLimitedError(decision.retryAfterSeconds));
  };
}

/** The query string carries the key only; filters belong in the body, so anything else is a mistake worth a 400. */
const onlyApiKeyInQuery: RequestHandler = (req, _res, next) => {
  const unknown = Object.keys(req.query).filter((k) => k !== 'api_key');
  next(unknown.length === 0 ? undefined : new ValidationError('invalid query', unknown.map((field) => ({ field: field.slice(0, 64), message: 'is not an allowed query parameter' }))));
};
