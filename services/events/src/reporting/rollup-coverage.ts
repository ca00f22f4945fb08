import type { Collection, Filter } from 'mongodb';
import { isBuilt, type MarkDocument } from '../rollups/mark-document';
import { MAX_LEVEL, unitId, unitSizeMs } from '../rollups/rollup-units';
import { hoursToLookUp, planReport, type Coverage, type PlanSpan, type RollupStep } from './plan-report';

/** Hour spans looked up with one `$or` each up to this many; more become one range query. */
const MAX_OR_SPANS = 32;

/**
 * Which rollup units a report may use right now: read from the marks in two steps, so a long
 * range does not read every hour mark. First days and blocks; the planner run on those shows
 * where hours could still help (edges, days not built), and only those hours are read.
 */
export class RollupCoverage {
  constructor(private readonly marks: Collection<MarkDocument>) {}

  async load(spans: readonly PlanSpan[], maxTimeMS: number): Promise<Coverage> {
    if (spans.length === 0) return { built: new Map() };
    const from = Math.min(...spans.map((s) => s.start));
    const to = Math.max(...spans.map((s) => s.end));
    const built = new Map<string, string>();
    const upper = await this.marks
      .find({ l: { $gte: 1 }, t: { $gte: from - unitSizeMs(MAX_LEVEL), $lt: to } }, { projection: { pending: 0 }, maxTimeMS })
      .toArray();
    for (const mark of upper) if (isBuilt(mark)) built.set(mark._id, mark.b!.g);

    const hourSpans = mergeSpans(hoursToLookUp(planReport(spans, { built })));
    if (hourSpans.length > 0) {
      const t = hourSpans.length <= MAX_OR_SPANS ? undefined : { $gte: hourSpans[0]!.from, $lt: hourSpans[hourSpans.length - 1]!.to };
      const filter: Filter<MarkDocument> = t ? { l: 0, t } : { l: 0, $or: hourSpans.map((s) => ({ t: { $gte: s.from, $lt: s.to } })) };
      for (const mark of await this.marks.find(filter, { projection: { pending: 0 }, maxTimeMS }).toArray()) {
        if (isBuilt(mark)) built.set(mark._id, mark.b!.g);
      }
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
}

function mergeSpans(spans: Array<{ from: number; to: number }>): Array<{ from: number; to: number }> {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  const out: Array<{ from: number; to: number }> = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}
