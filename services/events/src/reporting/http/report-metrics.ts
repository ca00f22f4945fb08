import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from '@cm/platform';
import type { ReportPlan } from '../plan/plan-report';

export interface ReportMetrics {
  /** Latency of report requests, by outcome. */
  duration: Histogram<'outcome'>;
  /** Report requests by outcome: ok, invalid, unauthorized, forbidden, rate_limited, unavailable, error. */
  reports: Counter<'outcome'>;
  /** Reads holding a key's slot: answering, or their client left while queries they sent still run. */
  inFlight: Gauge;
  /** Day buckets one report read: the input for sizing rollups and the per-report bucket concurrency. */
  buckets: Histogram;
  /** How a report was answered: rollup units read, raw parts read. */
  observePlan(plan: ReportPlan): void;
  /** Marks lookups of reports' plans: answered by the view of the marks, or (some marks) read from the store. */
  marks: Counter<'source'>;
  /** Background refreshes of the marks view that failed. */
  marksRefreshFailures: Counter;
}

/** What the decoded-page cache counts (read/page-cache.ts). */
export interface PageCacheCounts {
  readonly hits: number;
  readonly reads: number;
  readonly size: number;
}

/**
 * `cache`: the reporting process's decoded-page cache, whose counters the scrape reads: the pages
 * reports took from it and read from the store, and its bytes (size REPORT_PAGE_CACHE_MB from them).
 */
export function createReportMetrics(registry: Registry, cache?: PageCacheCounts): ReportMetrics {
  if (cache) {
    new Counter({
      name: 'events_report_pages_total',
      help: 'Rollup pages reports merged, by where they came from: cache (decoded already) or store (read and decoded)',
      labelNames: ['source'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ source: 'cache' }, cache.hits);
        this.inc({ source: 'store' }, cache.reads);
      },
    });
    new Gauge({
      name: 'events_report_page_cache_bytes',
      help: 'Estimated bytes of the decoded rollup pages the reporting process keeps (REPORT_PAGE_CACHE_MB bounds it)',
      registers: [registry],
      collect() {
        this.set(cache.size);
      },
    });
  }
  const units = new Counter({
    name: 'events_report_plan_parts_total',
    help: 'Parts of reports by source: rollup units read, raw parts (edges, dirty or not yet built hours) read',
    labelNames: ['source'],
    registers: [registry],
  });
  return {
    duration: new Histogram({
      name: 'events_report_duration_seconds',
      help: 'Report request latency by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    reports: new Counter({
      name: 'events_reports_total',
      help: 'Report requests by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'events_reports_in_flight',
      help: 'Reports and scorecards holding a per-key slot, including those whose client left while their queries still run',
      registers: [registry],
    }),
    buckets: new Histogram({
      name: 'events_report_buckets',
      help: 'Day buckets read by one report',
      buckets: [1, 2, 7, 14, 31, 62, 93, 186, 366],
      registers: [registry],
    }),
    marks: new Counter({
      name: 'events_report_marks_lookups_total',
      help: 'Rollup marks lookups of report plans, by where they were answered: view (held, at most REPORT_MARKS_MAX_AGE_MS old) or store (some marks read)',
      labelNames: ['source'],
      registers: [registry],
    }),
    marksRefreshFailures: new Counter({
      name: 'events_report_marks_refresh_failures_total',
      help: 'Background refreshes of the reporting process marks view that failed (reports read the store once the view is too old)',
      registers: [registry],
    }),
    observePlan: (plan) => {
      units.inc({ source: 'rollup' }, plan.rollup.length);
      units.inc({ source: 'raw' }, plan.raw.length);
    },
  };
}

const OUTCOMES: Record<number, string> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  413: 'invalid',
  415: 'invalid',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Outcome label of a finished report request: bounded set, derived from the status. */
export function reportOutcome(status: number): string {
  if (status < 400) return 'ok';
  return OUTCOMES[status] ?? (status >= 500 ? 'error' : 'invalid');
}
