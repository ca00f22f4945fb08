import { MongoNetworkError, MongoServerError, MongoServerSelectionError, type Collection, type Db } from 'mongodb';
import { UnavailableError, isStoreFullError } from '@cm/platform';
import { cellQueryOf, forEachGroup } from '../rollups/cell-reader';
import type { CellStore } from '../rollups/cell-store';
import type { MarkDocument } from '../rollups/mark-document';
import { bucketDay } from '../storage/bucket-naming';
import { selectBuckets } from './bucket-selection';
import { buildCountPipeline, readCountRow } from './count-pipeline';
import type { CountSource, GroupCount, ReportBudget } from './count-source';
import { GroupAccumulator } from './group-accumulator';
import { mapLimit } from './map-limit';
import { EMPTY_COVERAGE, planReport, type PlanSpan, type ReportPlan } from './plan-report';
import { rawBucketReads } from './raw-bucket-reads';
import { BudgetGate, checkBudget, deadlineError, drain, remainingMs } from './report-budget';
import { DAY_MS } from './report-dates';
import type { ReportQuery } from './report-query';
import { RollupCoverage } from './rollup-coverage';

export interface PlannedCountOptions {
  prefix: string;
  maxRangeDays: number;
  /** Day buckets aggregated at the same time by one report. */
  concurrency: number;
  /** Server-side bound on each query (maxTimeMS), further bounded by the report's deadline. */
  queryTimeoutMs: number;
  /** The report deadline (REPORT_DEADLINE_MS), for the error message. */
  deadlineMs?: number;
  /** Called with the number of day buckets a report read (for metrics). */
  onBuckets?: (count: number) => void;
  /** Called with how a report was answered (for metrics): units read from rollups, raw reads. */
  onPlan?: (plan: ReportPlan) => void;
  /** Without rollups every report is answered from raw events (the reference the differential test compares with). */
  rollups?: { marks: Collection<MarkDocument>; cells: CellStore };
}

/** A rollup unit rebuilt while a report read it: plan again, then give up on rollups for this report. */
const PLAN_ATTEMPTS = 3;
const MAX_TIME_MS_EXPIRED = 50;

/**
 * Counts a report: plans it over the rollup units that are built right now (planReport), reads
 * their cells and the raw parts (edges, dirty hours, what is not rolled up) and merges both as
 * they stream in, within the report's budget (deadline, client gone, group cap).
 */
export class PlannedCountSource implements CountSource {
  private readonly coverage?: RollupCoverage;

  constructor(private readonly db: Db, private readonly opts: PlannedCountOptions) {
    this.coverage = opts.rollups ? new RollupCoverage(opts.rollups.marks) : undefined;
  }

  async count(query: ReportQuery, budget?: ReportBudget): Promise<GroupCount[]> {
    const gate = new BudgetGate(budget, this.deadlineMs);
    try {
      const existing = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      const spans = this.spansOf(query, existing);
      for (let attempt = 1; ; attempt++) {
        const useRollups = this.coverage !== undefined && attempt < PLAN_ATTEMPTS;
        const coverage = useRollups ? await gate.race(this.coverage!.load(spans, remainingMs(budget, this.opts.queryTimeoutMs))) : EMPTY_COVERAGE;
        const plan = planReport(spans, coverage);
        const acc = new GroupAccumulator(budget?.maxGroups, query.limit !== undefined, budget?.maxGroupBytes);
        const reads = rawBucketReads(plan.raw, this.opts.prefix, new Set(existing));
        this.opts.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
        this.opts.onPlan?.(plan);
        await Promise.all([this.readCells(query, plan, acc, gate, budget), this.readRaw(query, reads, acc, gate, budget)]).catch((err: unknown) => {
          gate.trip(err);
          throw err;
        });
        if (!useRollups || (await gate.race(this.coverage!.stillCurrent(plan.rollup, remainingMs(budget, this.opts.queryTimeoutMs))))) return acc.groups();
      }
    } catch (err) {
      throw asUnavailable(err, this.deadlineMs) ?? err;
    } finally {
      gate.dispose();
    }
  }

  /** The spans to count: the series' buckets, or the whole range (an open range closed over the existing day buckets). */
  private spansOf(query: ReportQuery, existing: readonly string[]): PlanSpan[] {
    if (query.series) return query.series.map((b) => ({ start: b.start, end: b.end, time: b.time }));
    const buckets = selectBuckets({ prefix: this.opts.prefix, existing, range: query.range, maxRangeDays: this.opts.maxRangeDays });
    const from = query.range.from?.getTime() ?? (buckets.length > 0 ? dayOf(buckets[0]!.name, this.opts.prefix) : undefined);
    const to = query.range.to?.getTime() ?? (buckets.length > 0 ? dayOf(buckets[buckets.length - 1]!.name, this.opts.prefix) + DAY_MS - 1 : undefined);
    return from === undefined || to === undefined ? [] : [{ start: from, end: to + 1 }];
  }

  private async readCells(query: ReportQuery, plan: ReportPlan, acc: GroupAccumulator, gate: BudgetGate, budget?: ReportBudget): Promise<void> {
    if (plan.rollup.length === 0 || !this.opts.rollups) return;
    const q = cellQueryOf(query);
    const timeOf = new Map(plan.rollup.map((s) => [s.g, s.time]));
    const cursor = this.opts.rollups.cells.forReport(query.ownerId, [...timeOf.keys()], q.kind, q.names, q.storedKeys.length > 0, remainingMs(budget, this.opts.queryTimeoutMs));
    await drain(cursor, gate, (doc) => {
      const time = timeOf.get(doc.g);
      forEachGroup(doc, q, (name, contentId, url, value, latest) => acc.addParts(time, name, contentId, url, value, latest));
    });
  }

  private async readRaw(query: ReportQuery, reads: ReturnType<typeof rawBucketReads>, acc: GroupAccumulator, gate: BudgetGate, budget?: ReportBudget): Promise<void> {
    await mapLimit(reads, this.opts.concurrency, async (read) => {
      checkBudget(budget, this.deadlineMs);
      const cursor = this.db.collection(read.bucket).aggregate(buildCountPipeline(query, read.created), { maxTimeMS: remainingMs(budget, this.opts.queryTimeoutMs) });
      await drain(cursor, gate, (row) => {
        const group = readCountRow(row, query);
        acc.add(read.time === undefined ? group : { ...group, time: read.time });
      });
    });
  }

  private get deadlineMs(): number {
    return this.opts.deadlineMs ?? this.opts.queryTimeoutMs;
  }
}

function dayOf(bucket: string, prefix: string): number {
  return bucketDay(prefix, bucket)!.getTime();
}

/** A database that is down or too slow is a 503 for the caller, not an internal error. */
function asUnavailable(err: unknown, deadlineMs: number): UnavailableError | undefined {
  if (err instanceof MongoServerError && err.code === MAX_TIME_MS_EXPIRED) return deadlineError(deadlineMs);
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return new UnavailableError('event storage unavailable');
  if (isStoreFullError(err)) return new UnavailableError('event storage is full: an operator must free space');
  return undefined;
}
