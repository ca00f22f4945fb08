import type { Collection, Db } from 'mongodb';
import type { CellStore } from '../../rollups/cell-store';
import type { MarkDocument } from '../../rollups/mark-document';
import { EMPTY_COVERAGE, planReportYielding, type PlanSpan, type ReportPlan } from '../plan/plan-report';
import { reportSpans } from '../plan/report-spans';
import { RollupCoverage } from '../plan/rollup-coverage';
import type { ReportQuery } from '../request/report-query';
import { cellQueryOf, forEachGroup } from './cell-reader';
import { buildCountPipeline, readCountRow } from './count-pipeline';
import type { BudgetTerms, CountSource, GroupCount } from './count-source';
import { GroupAccumulator } from './group-accumulator';
import { mapLimit } from './map-limit';
import { rawBucketReadsYielding, type RawBucketRead } from './raw-bucket-reads';
import { reportAsk } from './report-ask';
import { ReportBudget } from './report-budget';
import { asUnavailable } from './storage-errors';

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

/**
 * Counts a report: plans it over the rollup units that are built right now (planReport), reads
 * their cells and the raw parts (edges, dirty hours, what is not rolled up) and merges both as
 * they stream in, within the report's budget (deadline, client gone, group cap).
 */
export class PlannedCountSource implements CountSource {
  private readonly coverage?: RollupCoverage;

  constructor(
    private readonly db: Db,
    private readonly opts: PlannedCountOptions,
  ) {
    this.coverage = opts.rollups ? new RollupCoverage(opts.rollups.marks) : undefined;
  }

  async count(query: ReportQuery, terms?: BudgetTerms): Promise<GroupCount[]> {
    const budget = new ReportBudget(terms, { deadlineMs: this.deadlineMs, perQueryMs: this.opts.queryTimeoutMs });
    try {
      const existing = await this.listBuckets();
      const spans = reportSpans(query, existing, {
        prefix: this.opts.prefix,
        maxRangeDays: this.opts.maxRangeDays,
        now: (this.opts.now ?? Date.now)(),
      });
      for (let attempt = 1; ; attempt++) {
        const useRollups = this.coverage !== undefined && attempt < PLAN_ATTEMPTS;
        const plan = await this.plan(spans, useRollups, budget);
        const groups = await this.read(query, plan, existing, budget);
        if (!useRollups || (await this.stillCurrent(plan, budget))) return groups;
      }
    } catch (err) {
      throw asUnavailable(err, this.deadlineMs) ?? err;
    } finally {
      budget.dispose();
    }
  }

  /** Every collection name: the day buckets that exist (and, for an open range, the oldest and newest). */
  private async listBuckets(): Promise<string[]> {
    return (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  }

  /** Which spans the built rollup units answer (coverage), and the plan over them; without rollups all is raw. */
  private async plan(spans: readonly PlanSpan[], useRollups: boolean, budget: ReportBudget): Promise<ReportPlan> {
    const coverage = useRollups ? await budget.run(() => this.coverage!.load(spans, budget)) : EMPTY_COVERAGE;
    return planReportYielding(spans, coverage);
  }

  /** Reads the plan's cells and raw buckets at the same time into one merge; one failing read stops the other. */
  private async read(
    query: ReportQuery,
    plan: ReportPlan,
    existing: readonly string[],
    budget: ReportBudget,
  ): Promise<GroupCount[]> {
    const acc = new GroupAccumulator(budget.maxGroups, query.limit !== undefined, budget.maxGroupBytes);
    const reads = await rawBucketReadsYielding(plan.raw, this.opts.prefix, new Set(existing));
    this.opts.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
    this.opts.onPlan?.(plan);
    await Promise.all([this.readCells(query, plan, acc, budget), this.readRaw(query, reads, acc, budget)]).catch(
      (err: unknown) => {
        budget.stop(err);
        throw err;
      },
    );
    return acc.groups();
  }

  private async readCells(
    query: ReportQuery,
    plan: ReportPlan,
    acc: GroupAccumulator,
    budget: ReportBudget,
  ): Promise<void> {
    if (plan.rollup.length === 0 || !this.opts.rollups) return;
    const q = cellQueryOf(query);
    const timeOf = new Map(plan.rollup.map((s) => [s.g, s.time]));
    const cursor = this.opts.rollups.cells.forReport(
      query.ownerId,
      [...timeOf.keys()],
      q.kind,
      q.names,
      q.sides,
      budget.remainingMs(),
    );
    await budget.stream(cursor, (doc) => {
      const time = timeOf.get(doc.g);
      forEachGroup(doc, q, (name, contentId, url, value, parts) =>
        acc.addParts(time, name, contentId, url, value, parts),
      );
    });
  }

  private async readRaw(
    query: ReportQuery,
    reads: readonly RawBucketRead[],
    acc: GroupAccumulator,
    budget: ReportBudget,
  ): Promise<void> {
    const ask = reportAsk(query);
    await mapLimit(reads, this.opts.concurrency, async (read) => {
      const cursor = this.db
        .collection(read.bucket)
        .aggregate(buildCountPipeline(query, read.created), { maxTimeMS: budget.remainingMs() });
      await budget.stream(cursor, (row) => {
        const group = readCountRow(row, query, ask);
        acc.add(read.time === undefined ? group : { ...group, time: read.time });
      });
    });
  }

  /** Whether the rollup units read are still the generations planned with (a rebuild in between means: plan again). */
  private stillCurrent(plan: ReportPlan, budget: ReportBudget): Promise<boolean> {
    return budget.run(() => this.coverage!.stillCurrent(plan.rollup, budget.remainingMs()));
  }

  private get deadlineMs(): number {
    return this.opts.deadlineMs ?? this.opts.queryTimeoutMs;
  }
}
