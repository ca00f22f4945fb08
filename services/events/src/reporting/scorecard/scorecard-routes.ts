import { Router } from 'express';
import { reportGuards, trackedRead, type ReportGuardDeps } from '../http/report-guards';
import type { ScorecardService } from './scorecard-service';

/**
 * `POST /api/v1/events/scorecard/?api_key=KEY` (trailing slash optional): the report's guards
 * (the same key limits, counted together with reports), then the scorecard.
 */
export function scorecardRoutes(deps: ReportGuardDeps & { scorecards: ScorecardService }): Router {
  const router = Router();
  router.post(
    '/api/v1/events/scorecard',
    ...reportGuards(deps),
    trackedRead((key, body, signal, work) => deps.scorecards.scorecard(key, body, { signal, work })),
  );
  return router;
}
