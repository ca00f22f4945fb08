import { MongoNetworkError, MongoServerError, MongoServerSelectionError, type Db } from 'mongodb';
import { UnavailableError } from '@cm/platform';
import { selectBuckets } from './bucket-selection';
import { buildCountPipeline, readCountRow } from './count-pipeline';
import type { CountSource, GroupCount } from './count-source';
import { mapLimit } from './map-limit';
import { mergeGroupCounts } from './merge-group-counts';
import type { ReportQuery } from './report-query';

export interface RawBucketOptions {
  prefix: string;
  maxRangeDays: number;
  /** Buckets aggregated at the same time by one report. */
  concurrency: number;
  /** Server-side bound on each bucket's aggregation (maxTimeMS). */
  queryTimeoutMs: number;
  /** Called with the number of buckets a report read (for metrics). */
  onBuckets?: (count: number) => void;
}

const MAX_TIME_MS_EXPIRED = 50;

/**
 * Counts straight from the day buckets: one pipeline per bucket the range touches (no
 * $unionWith, which the stand-in lacks), merged in code.
 */
export class RawBucketCountSource implements CountSource {
  constructor(private readonly db: Db, private readonly opts: RawBucketOptions) {}

  async count(query: ReportQuery): Promise<GroupCount[]> {
    try {
      const existing = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      const plans = selectBuckets({ prefix: this.opts.prefix, existing, range: query.range, maxRangeDays: this.opts.maxRangeDays });
      this.opts.onBuckets?.(plans.length);
      const partials = await mapLimit(plans, this.opts.concurrency, async (plan) => {
        const rows = await this.db
          .collection(plan.name)
          .aggregate(buildCountPipeline(query, plan.created), { maxTimeMS: this.opts.queryTimeoutMs })
          .toArray();
        return rows.map((row) => readCountRow(row, query));
      });
      return mergeGroupCounts(partials);
    } catch (err) {
      throw asUnavailable(err) ?? err;
    }
  }
}

/** A database that is down or too slow is a 503 for the caller, not an internal error. */
function asUnavailable(err: unknown): UnavailableError | undefined {
  if (err instanceof MongoServerError && err.code === MAX_TIME_MS_EXPIRED) {
    return new UnavailableError('the report took too long; narrow the time range or the filters');
  }
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return new UnavailableError('event storage unavailable');
  return undefined;
}
