import { bucketDay } from '../../storage/bucket-naming';
import type { ReportQuery } from '../request/report-query';
import { clampReportRange, type StoredDays } from '../request/report-range';
import type { PlanSpan } from './plan-report';

export interface SpanOptions {
  prefix: string;
  maxRangeDays: number;
  /** The clock an open upper bound is clamped to. */
  now: number;
}

/** The spans to count: the series' buckets, or the range (an open one clamped to the stored day buckets: clampReportRange). */
export function reportSpans(query: ReportQuery, existing: readonly string[], opts: SpanOptions): PlanSpan[] {
  if (query.series) return query.series.map((b) => ({ start: b.start, end: b.end, time: b.time }));
  const stored = storedDays(existing, opts.prefix);
  const range = clampReportRange(query.range, stored, {
    maxRangeDays: opts.maxRangeDays,
    now: opts.now,
  });
  return range ? [{ start: range.from, end: range.to + 1 }] : [];
}

/** The oldest and newest day that have a bucket of this prefix (one pass: no sort of every collection name). */
function storedDays(existing: readonly string[], prefix: string): StoredDays | undefined {
  let oldest = Infinity;
  let newest = -Infinity;
  for (const name of existing) {
    const day = bucketDay(prefix, name)?.getTime();
    if (day === undefined) continue;
    oldest = Math.min(oldest, day);
    newest = Math.max(newest, day);
  }
  return oldest <= newest ? { oldest, newest } : undefined;
}
