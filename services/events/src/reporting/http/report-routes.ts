import { Router } from 'express';
import { reportGuards, trackedRead, type ReportGuardDeps } from './report-guards';
import type { ReportService } from './report-service';

export interface ReportRouteDeps extends ReportGuardDeps {
  reports: ReportService;
}

/**
 * `POST /api/v1/events/?api_key=KEY` (trailing slash optional). Order: 401, 429 (rate,
 * then reports running for the key), then the body (report-guards.ts).
 */
export function reportRoutes(deps: ReportRouteDeps): Router {
  const router = Router();
  router.post(
    '/api/v1/events',
    ...reportGuards(deps),
    trackedRead((key, body, signal, work) => deps.reports.report(key, body, signal, work)),
  );
  return router;
}
