import { bucketName } from '../../storage/bucket-naming';
import { DAY_MS, utcDayStart } from '../../storage/time-units';
import type { CreatedBounds } from './raw-pipeline';
import type { RawStep } from '../plan/plan-report';
import { runAtOnce, STEPS_PER_SLICE, type SlicedWork } from '../plan/sliced-work';

/** One aggregation of raw events: a day bucket, the created ranges it needs (none: the whole day), the row time. */
export interface RawBucketRead {
  bucket: string;
  created: CreatedBounds[];
  time?: number;
}

/**
 * The raw steps of a plan as day-bucket reads: each step is cut at UTC midnights, parts of the
 * same bucket and row time become one read (one `$or` of ranges), and buckets that do not
 * exist are never queried.
 */
export function rawBucketReads(
  steps: readonly RawStep[],
  prefix: string,
  existing: ReadonlySet<string>,
): RawBucketRead[] {
  const work = rawBucketReadSteps(steps, prefix, existing);
  return runAtOnce(work);
}

/** rawBucketReads as sliced work (a yield every STEPS_PER_SLICE parts), run with the plan it reads. */
export function* rawBucketReadSteps(
  steps: readonly RawStep[],
  prefix: string,
  existing: ReadonlySet<string>,
): SlicedWork<RawBucketRead[]> {
  const reads = new Map<string, RawBucketRead & { whole: boolean }>();
  const names = new Map<number, string>();
  let parts = 0;
  for (const step of steps) {
    for (let day = utcDayStart(step.from); day < step.to; day += DAY_MS) {
      if (++parts % STEPS_PER_SLICE === 0) yield;
      let bucket = names.get(day);
      if (bucket === undefined) names.set(day, (bucket = bucketName(prefix, new Date(day))));
      if (!existing.has(bucket)) continue;
      const from = Math.max(step.from, day);
      const to = Math.min(step.to, day + DAY_MS);
      const key = `${bucket}|${step.time ?? ''}`;
      const read = reads.get(key) ?? {
        bucket,
        created: [],
        whole: false,
        ...(step.time === undefined ? {} : { time: step.time }),
      };
      reads.set(key, read);
      if (from === day && to === day + DAY_MS) read.whole = true;
      else read.created.push({ gte: new Date(from), lte: new Date(to - 1) });
    }
  }
  return [...reads.values()].map(({ whole, ...read }) => (whole ? { ...read, created: [] } : read));
}
