import type { Collection, Db } from 'mongodb';
import type { BrokenUnits } from '../../rollups/broken-units';
import { GenerationGoneError, type CellStore } from '../../rollups/cell-store';
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
  rollups?: { marks: Collection<MarkDocument>; cells: CellStore; broken?: Pick<BrokenUnits, 'reset'> };
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
      // generations found unusable while reading: never planned with again by this report
      const unusable = new Set<string>();
      for (let attempt = 1; ; attempt++) {
        const useRollups = this.coverage !== undefined && attempt < PLAN_ATTEMPTS;
        const plan = await this.plan(spans, useRollups, budget, unusable);
        const read = await this.read(query, plan, existing, budget);
        if (read.gone) {
          // a unit rebuilt meanwhile, or one pointing at missing cells: the latter is reset
          // (compare-and-set, so a rebuilt one is left alone) and the report planned again without it
          for (const g of read.gone) unusable.add(g);
          await budget.run(() => this.opts.rollups!.broken?.reset(read.gone!, 'report') ?? Promise.resolve(0));
          continue;
        }
        if (!useRollups || (await this.stillCurrent(plan, budget))) return read.groups;
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
  private async plan(
    spans: readonly PlanSpan[],
    useRollups: boolean,
    budget: ReportBudget,
    unusable: ReadonlySet<string>,
  ): Promise<ReportPlan> {
    if (!useRollups) return planReportYielding(spans, EMPTY_COVERAGE);
    const { built } = await budget.run(() => this.coverage!.load(spans, budget));
    const usable = new Map([...built].filter(([, g]) => !unusable.has(g)));
    return planReportYielding(spans, { built: usable });
  }

  /**
   * Reads the plan's cells and raw buckets at the same time into one merge; one failing read stops
   * the other. A mark alone is not trusted: the manifests of the planned generations are checked
   * at the same time, and a generation without one, or lacking a document its directory lists,
   * comes back as `gone` (its answer is discarded).
   */
  private async read(
    query: ReportQuery,
    plan: ReportPlan,
    existing: readonly string[],
    budget: ReportBudget,
  ): Promise<{ groups: GroupCount[]; gone?: string[] }> {
    const acc = new GroupAccumulator(budget.maxGroups, query.limit !== undefined, budget.maxGroupBytes);
    const reads = await rawBucketReadsYielding(plan.raw, this.opts.prefix, new Set(existing));
    this.opts.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
    this.opts.onPlan?.(plan);
    try {
      const [missing] = await Promise.all([
        this.missingGenerations(plan, budget),
        this.readCells(query, plan, acc, budget),
        this.readRaw(query, reads, acc, budget),
      ]).catch((err: unknown) => {
        // a generation gone is answered by planning again, which needs the budget
        if (!(err instanceof GenerationGoneError)) budget.stop(err);
        throw err;
      });
      if (missing.length > 0) return { groups: [], gone: missing };
    } catch (err) {
      if (err instanceof GenerationGoneError) return { groups: [], gone: [...err.generations] };
      throw err;
    }
    return { groups: acc.groups() };
  }

  /** The planned generations whose manifest is missing. */
  private missingGenerations(plan: ReportPlan, budget: ReportBudget): Promise<string[]> {
    if (plan.rollup.length === 0 || !this.opts.rollups) return Promise.resolve([]);
    const cells = this.opts.rollups.cells;
    return budget.run(() => cells.missingGenerations([...new Set(plan.rollup.map((s) => s.g))], budget.remainingMs()));
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
