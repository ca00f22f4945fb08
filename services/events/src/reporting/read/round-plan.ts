import { planSteps, type Coverage, type PlanSpan, type ReportPlan } from '../plan/plan-report';
import type { SlicedWork } from '../plan/sliced-work';
import { rawBucketReadSteps, type RawBucketRead } from './raw-bucket-reads';

/** One planning round of a report: which parts come from which rollup unit, and the day-bucket reads of the rest. */
export interface RoundPlan {
  steps: ReportPlan;
  reads: RawBucketRead[];
}

/**
 * A round's planning as one sliced work, so the event loop gets its turns throughout (a series of
 * 10,000 buckets): the plan over the coverage, then its raw steps as reads of the day buckets
 * that exist. Pure: the read that follows only reads.
 */
export function* roundPlan(
  spans: readonly PlanSpan[],
  coverage: Coverage,
  prefix: string,
  buckets: ReadonlySet<string>,
): SlicedWork<RoundPlan> {
  const steps = yield* planSteps(spans, coverage);
  return { steps, reads: yield* rawBucketReadSteps(steps.raw, prefix, buckets) };
}
