import type { Collection } from 'mongodb';
import { isBuilt, type MarkDocument } from '../rollups/mark-document';
import { DAY_LEVEL, MAX_LEVEL, unitId, unitSizeMs } from '../rollups/rollup-units';
import { planReport, spansToLookUp, type Coverage, type PlanSpan, type RollupStep } from './plan-report';

const ID_CHUNK = 2000;

/** Ids of the units of a level that overlap [from, to). */
function unitIdsIn(level: number, from: number, to: number): string[] {
  const size = unitSizeMs(level);
  const ids: string[] = [];
  for (let start = Math.floor(from / size) * size; start < to; start += size) ids.push(unitId({ level, start }));
  return ids;
}

/**
 * Which rollup units a report may use right now, read from the marks top-down so a long range
 * never reads every hour mark: days and larger blocks first (one query), then each sub-day level
 * (8h, 4h, 2h, 1h) only where the plan so far still reads raw events (edges, zone days that do
 * not align with UTC days, units not built).
 */
export class RollupCoverage {
  constructor(private readonly marks: Collection<MarkDocument>) {}

  async load(spans: readonly PlanSpan[], maxTimeMS: number): Promise<Coverage> {
    const built = new Map<string, string>();
    if (spans.length === 0) return { built };
    const from = Math.min(...spans.map((s) => s.start));
    const to = Math.max(...spans.map((s) => s.end));
    const upper: string[] = [];
    for (let level = DAY_LEVEL; level <= MAX_LEVEL; level++) upper.push(...unitIdsIn(level, from, to));
    this.add(built, await this.find(upper, maxTimeMS));
    for (let level = DAY_LEVEL - 1; level >= 0; level--) {
      const lookUp = spansToLookUp(planReport(spans, { built }), level);
      if (lookUp.length === 0) break;
      this.add(built, await this.find(lookUp.flatMap((s) => unitIdsIn(level, s.from, s.to)), maxTimeMS));
    }
    return { built };
  }

  /**
   * After the cells were read: the units used still point at the generation that was read. A
   * unit rebuilt meanwhile may have had its old cells dropped mid-read, so the caller re-plans.
   */
  async stillCurrent(steps: readonly RollupStep[], maxTimeMS: number): Promise<boolean> {
    if (steps.length === 0) return true;
    const ids = [...new Set(steps.map((s) => unitId(s.unit)))];
    const now = new Map<string, string>();
    for (const mark of await this.marks.find({ _id: { $in: ids } }, { projection: { b: 1 }, maxTimeMS }).toArray()) {
      if (mark.b) now.set(mark._id, mark.b.g);
    }
    return steps.every((s) => now.get(unitId(s.unit)) === s.g);
  }

  /** Marks by `_id` only: hash lookups, where a query by level and time would scan the marks on the stand-in. */
  private async find(ids: readonly string[], maxTimeMS: number): Promise<MarkDocument[]> {
    const out: MarkDocument[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      out.push(...(await this.marks.find({ _id: { $in: ids.slice(i, i + ID_CHUNK) } }, { projection: { pending: 0 }, maxTimeMS }).toArray()));
    }
    return out;
  }

  private add(built: Map<string, string>, marks: readonly MarkDocument[]): void {
    for (const mark of marks) if (isBuilt(mark)) built.set(mark._id, mark.b!.g);
  }
}
