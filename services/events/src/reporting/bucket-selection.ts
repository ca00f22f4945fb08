import { bucketDay } from '../storage/bucket-naming';
import type { CreatedBounds } from './count-pipeline';
import { DAY_MS } from './report-dates';
import type { TimeRange } from './report-query';

/** One bucket a report reads, with the `created` bounds it still needs (none when the range covers its whole day). */
export interface BucketPlan {
  name: string;
  created?: CreatedBounds;
}

export interface BucketSelection {
  prefix: string;
  /** Every collection name in the database (bucket names are matched here, not by a listCollections filter). */
  existing: readonly string[];
  range: TimeRange;
  /** An open range reads at most the newest this many days of buckets (REPORT_MAX_RANGE_DAYS). */
  maxRangeDays: number;
}

/**
 * The day buckets a report touches, oldest first: existing buckets of this prefix whose UTC day
 * overlaps the range. Days that do not exist are never queried.
 */
export function selectBuckets(sel: BucketSelection): BucketPlan[] {
  const from = sel.range.from?.getTime();
  const to = sel.range.to?.getTime();
  let days = sel.existing
    .map((name) => ({ name, start: bucketDay(sel.prefix, name)?.getTime() }))
    .filter((b): b is { name: string; start: number } => b.start !== undefined)
    .filter((b) => (from === undefined || b.start + DAY_MS - 1 >= from) && (to === undefined || b.start <= to))
    .sort((a, b) => a.start - b.start);

  const newest = days[days.length - 1];
  if ((from === undefined || to === undefined) && newest) {
    // closed ranges are capped at validation (400); an open one silently keeps the newest days
    const oldestAllowed = newest.start - (sel.maxRangeDays - 1) * DAY_MS;
    days = days.filter((b) => b.start >= oldestAllowed);
  }

  return days.map(({ name, start }) => {
    const created: CreatedBounds = {};
    if (from !== undefined && from > start) created.gte = new Date(from);
    if (to !== undefined && to < start + DAY_MS - 1) created.lte = new Date(to);
    return created.gte || created.lte ? { name, created } : { name };
  });
}
