import type { Router } from 'express';
import type { Db } from 'mongodb';
import { TokenBuckets, bodyParsers, type Logger, type Registry } from '@cm/platform';
import { apiKeyRoutes } from '../api-keys/api-key-routes';
import { ApiKeyService } from '../api-keys/api-key-service';
import { ApiKeyStore } from '../api-keys/api-key-store';
import type { EventsConfig } from '../config';
import type { CampaignLookup } from '../registry/campaign-registry-watcher';
import type { BrokenUnits } from '../rollups/broken-units';
import { CellStore } from '../rollups/cell-store';
import { RollupMarks } from '../rollups/rollup-marks';
import { KeyConcurrency } from './http/key-concurrency';
import { MarksView } from './plan/marks-view';
import { PageCache } from './read/page-cache';
import { PlannedCountSource } from './read/planned-count-source';
import { createReportMetrics } from './http/report-metrics';
import { reportRoutes } from './http/report-routes';
import { ReportService } from './http/report-service';
import { scorecardRoutes } from './scorecard/scorecard-routes';
import { ScorecardService } from './scorecard/scorecard-service';

/** Day buckets one report aggregates at the same time: enough to overlap MongoDB round trips, few enough that one long report does not crowd out the others. */
const REPORT_BUCKET_CONCURRENCY = 4;

export interface ReportingFeatureDeps {
  db: Db;
  logger: Logger;
  metrics: Registry;
  config: Pick<
    EventsConfig,
    | 'ADMIN_TOKEN'
    | 'BUCKET_PREFIX'
    | 'RETENTION_DAYS'
    | 'REPORT_RATE_LIMIT_PER_MINUTE'
    | 'REPORT_MAX_RANGE_DAYS'
    | 'REPORT_QUERY_TIMEOUT_MS'
    | 'REPORT_DEADLINE_MS'
    | 'REPORT_MAX_GROUPS'
    | 'REPORT_MAX_RANKED_GROUPS'
    | 'REPORT_MAX_BUCKETS'
    | 'REPORT_CONCURRENCY_PER_KEY'
    | 'REPORT_PAGE_CACHE_MB'
    | 'REPORT_MARKS_MAX_AGE_MS'
    | 'REPORT_COUNTRY_FLOOR'
    | 'ROLLUP_ZONES'
    | 'API_KEY_CACHE_TTL_MS'
    | 'API_KEY_FAILED_LOOKUPS_PER_MINUTE'
    | 'PIXEL_TRUSTED_PROXY_HOPS'
    | 'BODY_LIMIT'
    | 'VISITOR_SALT_PERIOD'
  >;
  /** The campaign registry's mirror: a report's `campaign` and the scorecard resolve tokens here. */
  campaigns: CampaignLookup;
  /** Overrides MAX_GROUP_BYTES: lets a test reach the bound with little data. */
  maxGroupBytes?: number;
  /** Where a report resets a rollup unit found pointing at missing cells or contains one with damaged pages (the rollup feature's). */
  broken?: BrokenUnits;
}

export interface ReportingFeature {
  /** `POST /api/v1/events/`, `POST /api/v1/events/scorecard/` and `/admin/v1/api-keys`; mounted on the events Express app. */
  routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Wires the reporting role: API keys (admin + auth), rate limits, the planned (rollups + raw) count source, the report and scorecard routes. */
export async function createReportingFeature(deps: ReportingFeatureDeps): Promise<ReportingFeature> {
  const { db, config } = deps;
  const store = new ApiKeyStore(db);
  await store.init();
  const keys = new ApiKeyService(store, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS });
  const cache = new PageCache(config.REPORT_PAGE_CACHE_MB * 1024 * 1024);
  const metrics = createReportMetrics(deps.metrics, cache);
  // read-only use: the rollup feature (every process with MongoDB) creates the marks' indexes.
  // Reports plan with a view of them at most REPORT_MARKS_MAX_AGE_MS old (0: the store each time)
  const marks = new MarksView(new RollupMarks(db), {
    maxAgeMs: config.REPORT_MARKS_MAX_AGE_MS,
    onMarks: (from) => metrics.marks.inc({ source: from }),
    onRefreshFailed: (err, inARow) => {
      metrics.marksRefreshFailures.inc();
      // once per outage, not every refresh: the counter counts them all
      if (inARow === 1)
        deps.logger.warn('report marks view refresh failed; reports read the marks from the store until one succeeds', {
          error: err instanceof Error ? err.message : String(err),
        });
    },
  });
  const cells = new CellStore(db);
  const source = new PlannedCountSource(db, {
    prefix: config.BUCKET_PREFIX,
    maxRangeDays: config.REPORT_MAX_RANGE_DAYS,
    concurrency: REPORT_BUCKET_CONCURRENCY,
    queryTimeoutMs: config.REPORT_QUERY_TIMEOUT_MS,
    deadlineMs: config.REPORT_DEADLINE_MS,
    onBuckets: (n) => metrics.buckets.observe(n),
    onPlan: (plan) => metrics.observePlan(plan),
    rawRetentionDays: config.RETENTION_DAYS,
    rollups: {
      marks,
      cells,
      broken: deps.broken,
      cache,
      zones: config.ROLLUP_ZONES,
    },
  });
  const reports = new ReportService(
    source,
    {
      maxRangeDays: config.REPORT_MAX_RANGE_DAYS,
      maxBuckets: config.REPORT_MAX_BUCKETS,
      deadlineMs: config.REPORT_DEADLINE_MS,
      maxGroups: config.REPORT_MAX_GROUPS,
      maxRankedGroups: config.REPORT_MAX_RANKED_GROUPS,
      maxGroupBytes: deps.maxGroupBytes,
      countryFloor: config.REPORT_COUNTRY_FLOOR,
    },
    deps.campaigns,
  );
  const scorecards = new ScorecardService(reports, { saltPeriod: config.VISITOR_SALT_PERIOD });
  // per minute, with a minute's worth as the burst
  const limiter = new TokenBuckets({
    perSecond: config.REPORT_RATE_LIMIT_PER_MINUTE / 60,
    burst: config.REPORT_RATE_LIMIT_PER_MINUTE,
  });
  const failures = new TokenBuckets({
    perSecond: config.API_KEY_FAILED_LOOKUPS_PER_MINUTE / 60,
    burst: config.API_KEY_FAILED_LOOKUPS_PER_MINUTE,
  });
  const concurrency = new KeyConcurrency(config.REPORT_CONCURRENCY_PER_KEY);
  // one set of limits for both routes: a key's rate and its reads at once count reports and scorecards together
  const guards = {
    keys,
    failures,
    trustedProxyHops: config.PIXEL_TRUSTED_PROXY_HOPS,
    limiter,
    concurrency,
    metrics,
    bodyLimit: config.BODY_LIMIT,
  };

  return {
    routers: [
      reportRoutes({ ...guards, reports }),
      scorecardRoutes({ ...guards, scorecards }),
      apiKeyRoutes(keys, config.ADMIN_TOKEN, bodyParsers({ limit: config.BODY_LIMIT })),
    ],
    // nothing runs in the background but the marks view's refreshes, which only reports start
    start: async () => {},
    stop: () => marks.stop(),
  };
}
