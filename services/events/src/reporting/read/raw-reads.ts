import type { Db } from 'mongodb';
import { groupStatesOfRow } from '../../metrics/registry';
import { storedOf } from '../../storage/dimensions';
import { mapLimit } from './map-limit';
import type { RawBucketRead } from './raw-bucket-reads';
import type { ReadPlan } from './read-plan';
import type { ReportBudget } from './report-budget';
import type { ReportGroups } from './report-groups';

/**
 * The raw side of a report: each day-bucket read aggregated by the plan's pipeline, `concurrency`
 * buckets at once, and every output row merged into its group as it arrives (so a group holds its
 * merged states, never the rows: a span with 200,000 distinct measure values costs one sketch).
 */
export async function readRaw(
  db: Db,
  plan: ReadPlan,
  reads: readonly RawBucketRead[],
  groups: ReportGroups,
  budget: ReportBudget,
  concurrency: number,
): Promise<void> {
  const { ask, aggregates, query } = plan;
  const parts = reads.flatMap((read) => plan.rawPipelines(read.created).map((pipeline) => ({ read, pipeline })));
  await mapLimit(parts, concurrency, async ({ read, pipeline }) => {
    const cursor = db.collection(read.bucket).aggregate(pipeline, { maxTimeMS: budget.remainingMs() });
    const values = new Array<string>(query.groupBy.length);
    await budget.stream(cursor, (row) => {
      const id = row._id as Record<string, unknown>;
      for (let j = 0; j < values.length; j++) values[j] = storedOf(id[`g${j}`]);
      const slot = groups.slot(read.time, String(id.name), values);
      const states = groupStatesOfRow(row, ask) as Record<string, unknown>;
      aggregates.forEach((name, i) => groups.merge(slot, i, states[name]));
    });
  });
}
