import { MongoNetworkError, MongoServerError, MongoServerSelectionError, type Collection, type Db } from 'mongodb';
import { UnavailableError, isStoreFullError } from '@cm/platform';
import { cellQueryOf, forEachGroup } from './cell-reader';
import type { CellStore } from '../../rollups/cell-store';
import type { MarkDocument } from '../../rollups/mark-document';
import { bucketDay } from '../../storage/bucket-naming';
import { buildCountPipeline, readCountRow } from './count-pipeline';
import type { BudgetTerms, CountSource, GroupCount } from './count-source';
import { GroupAccumulator } from './group-accumulator';
import { mapLimit } from './map-limit';
import { EMPTY_COVERAGE, planReportYielding, type PlanSpan, type ReportPlan } from '../plan/plan-report';
import { rawBucketReadsYielding, type RawBucketRead } from './raw-bucket-reads';
import { ReportBudget, deadlineError } from './report-budget';
import type { ReportQuery } from '../request/report-query';
import { clampReportRange, type StoredDays } from '../request/report-range';
import { RollupCoverage } from '../plan/rollup-coverage';

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
  /** The clock an open upper bound is clamped to (Date.now). */
  now?: () => number;
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

  async count(query: ReportQuery, terms?: BudgetTerms): Promise<GroupCount[]> {
    const budget = new ReportBudget(terms, { deadlineMs: this.deadlineMs, perQueryMs: this.opts.queryTimeoutMs });
    try {
      const existing = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      const spans = this.spansOf(query, existing);
      for (let attempt = 1; ; attempt++) {
        const useRollups = this.coverage !== undefined && attempt < PLAN_ATTEMPTS;
        const coverage = useRollups ? await budget.run(() => this.coverage!.load(spans, budget)) : EMPTY_COVERAGE;
        const plan = await planReportYielding(spans, coverage);
        const acc = new GroupAccumulator(budget.maxGroups, query.limit !== undefined, budget.maxGroupBytes);
        const reads = await rawBucketReadsYielding(plan.raw, this.opts.prefix, new Set(existing));
        this.opts.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
        this.opts.onPlan?.(plan);
        await Promise.all([this.readCells(query, plan, acc, budget), this.readRaw(query, reads, acc, budget)]).catch((err: unknown) => {
          budget.stop(err);
          throw err;
        });
        if (!useRollups || (await budget.run(() => this.coverage!.stillCurrent(plan.rollup, budget.remainingMs())))) return acc.groups();
      }
    } catch (err) {
      throw asUnavailable(err, this.deadlineMs) ?? err;
    } finally {
      budget.dispose();
    }
  }

  /** The spans to count: the series' buckets, or the range (an open one clamped to the stored day buckets: clampReportRange). */
  private spansOf(query: ReportQuery, existing: readonly string[]): PlanSpan[] {
    if (query.series) return query.series.map((b) => ({ start: b.start, end: b.end, time: b.time }));
    const range = clampReportRange(query.range, storedDays(existing, this.opts.prefix), { maxRangeDays: this.opts.maxRangeDays, now: (this.opts.now ?? Date.now)() });
    return range ? [{ start: range.from, end: range.to + 1 }] : [];
  }

  private async readCells(query: ReportQuery, plan: ReportPlan, acc: GroupAccumulator, budget: ReportBudget): Promise<void> {
    if (plan.rollup.length === 0 || !this.opts.rollups) return;
    const q = cellQueryOf(query);
    const timeOf = new Map(plan.rollup.map((s) => [s.g, s.time]));
    const cursor = this.opts.rollups.cells.forReport(query.ownerId, [...timeOf.keys()], q.kind, q.names, q.storedKeys.length > 0, budget.remainingMs());
    await budget.stream(cursor, (doc) => {
      const time = timeOf.get(doc.g);
      forEachGroup(doc, q, (name, contentId, url, value, latest) => acc.addParts(time, name, contentId, url, value, latest));
    });
  }

  private async readRaw(query: ReportQuery, reads: readonly RawBucketRead[], acc: GroupAccumulator, budget: ReportBudget): Promise<void> {
    await mapLimit(reads, this.opts.concurrency, async (read) => {
      const cursor = this.db.collection(read.bucket).aggregate(buildCountPipeline(query, read.created), { maxTimeMS: budget.remainingMs() });
      await budget.stream(cursor, (row) => {
        const group = readCountRow(row, query);
        acc.add(read.time === undefined ? group : { ...group, time: read.time });
      });
    });
  }

  private get deadlineMs(): number {
    return this.opts.deadlineMs ?? this.opts.queryTimeoutMs;
  }
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

/** A database that is down or too slow is a 503 for the caller, not an internal error. */
function asUnavailable(err: unknown, deadlineMs: number): UnavailableError | undefined {
  if (err instanceof MongoServerError && err.code === MAX_TIME_MS_EXPIRED) return deadlineError(deadlineMs);
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return new UnavailableError('event storage unavailable');
  if (isStoreFullError(err)) return new UnavailableError('event storage is full: an operator must free space');
  return undefined;
}
