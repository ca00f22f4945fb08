import type { Collection, Db } from 'mongodb';
import type { BrokenUnits } from '../../rollups/broken-units';
import { GenerationGoneError, type CellStore } from '../../rollups/cell-store';
import type { MarkDocument } from '../../rollups/mark-document';
import { EMPTY_COVERAGE, planReportYielding, type PlanSpan, type ReportPlan } from '../plan/plan-report';
import { reportSpans } from '../plan/report-spans';
import { RollupCoverage } from '../plan/rollup-coverage';
import { readCells, UnitNotUsableError } from './cell-reads';
import type { BudgetTerms, CountSource } from './count-source';
import { PageCache } from './page-cache';
import { rawBucketReadsYielding } from './raw-bucket-reads';
import { readRaw } from './raw-reads';
import type { ReadPlan } from './read-plan';
import { ReportBudget } from './report-budget';
import { ReportGroups, type ReportGroup } from './report-groups';
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
  rollups?: {
    marks: Collection<MarkDocument>;
    cells: CellStore;
    broken?: Pick<BrokenUnits, 'reset'>;
    /** Decoded pages kept between reports (default: 64 MiB). */
    cache?: PageCache;
  };
}

/** A rollup unit rebuilt while a report read it: plan again, then give up on rollups for this report. */
const PLAN_ATTEMPTS = 3;

/**
 * Counts a report: plans it over the rollup units that are built right now (planReport), reads
 * their pages and the raw parts (edges, dirty hours, what is not rolled up) and merges both as
 * they stream in, within the report's budget (deadline, client gone, group cap).
 */
export class PlannedCountSource implements CountSource {
  private readonly coverage?: RollupCoverage;
  private readonly cache?: PageCache;

  constructor(
    private readonly db: Db,
    private readonly opts: PlannedCountOptions,
  ) {
    this.coverage = opts.rollups ? new RollupCoverage(opts.rollups.marks) : undefined;
    this.cache = opts.rollups ? (opts.rollups.cache ?? new PageCache(64 * 1024 * 1024)) : undefined;
  }

  async count(plan: ReadPlan, terms?: BudgetTerms): Promise<ReportGroup[]> {
    const budget = new ReportBudget(terms, { deadlineMs: this.deadlineMs, perQueryMs: this.opts.queryTimeoutMs });
    try {
      const existing = await budget.run(() => this.listBuckets());
      const spans = reportSpans(plan.query, existing, {
        prefix: this.opts.prefix,
        maxRangeDays: this.opts.maxRangeDays,
        now: (this.opts.now ?? Date.now)(),
      });
      // generations found unusable while reading: never planned with again by this report
      const unusable = new Set<string>();
      for (let attempt = 1; ; attempt++) {
        const useRollups = this.coverage !== undefined && plan.family !== undefined && attempt < PLAN_ATTEMPTS;
        const steps = await this.plan(spans, useRollups, budget, unusable);
        const read = await this.read(plan, steps, existing, budget);
        if (read.gone) {
          // a unit rebuilt meanwhile, or one pointing at missing cells: the latter is reset
          // (compare-and-set, so a rebuilt one is left alone) and the report planned again without it
          for (const g of read.gone) unusable.add(g);
          const reset = read.reset ?? [];
          if (reset.length > 0)
            await budget.run(() => this.opts.rollups!.broken?.reset(reset, 'report') ?? Promise.resolve(0));
          continue;
        }
        if (!useRollups || (await this.stillCurrent(steps, budget))) return read.groups;
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
   * at the same time, and a generation without one, of the first page format (not converted yet),
   * or lacking a page, comes back as `gone` (the answer is discarded); `reset`: those whose unit
   * is reset (broken), never a first-format one (it may not be rebuildable: the builder converts it).
   */
  private async read(
    plan: ReadPlan,
    steps: ReportPlan,
    existing: readonly string[],
    budget: ReportBudget,
  ): Promise<{ groups: ReportGroup[]; gone?: readonly string[]; reset?: readonly string[] }> {
    const groups = new ReportGroups(
      plan.aggregates,
      budget.maxGroups,
      plan.query.limit !== undefined,
      budget.maxGroupBytes,
    );
    const reads = await rawBucketReadsYielding(steps.raw, this.opts.prefix, new Set(existing));
    this.opts.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
    this.opts.onPlan?.(steps);
    const rollups = this.opts.rollups;
    try {
      const [unusable] = await Promise.all([
        steps.rollup.length > 0 && rollups
          ? budget.run(() =>
              rollups.cells.unusableGenerations([...new Set(steps.rollup.map((s) => s.g))], budget.remainingMs()),
            )
          : Promise.resolve({ missing: [], legacy: [] }),
        rollups ? readCells(plan, steps.rollup, groups, budget, rollups.cells, this.cache!) : Promise.resolve(),
        readRaw(this.db, plan, reads, groups, budget, this.opts.concurrency),
      ]).catch((err: unknown) => {
        // a generation gone is answered by planning again, which needs the budget
        if (!(err instanceof GenerationGoneError) && !(err instanceof UnitNotUsableError)) budget.stop(err);
        throw err;
      });
      // legacy: waiting for the builder's migration (never reset: it may not be rebuildable)
      if (unusable.missing.length + unusable.legacy.length > 0)
        return { groups: [], gone: [...unusable.missing, ...unusable.legacy], reset: unusable.missing };
    } catch (err) {
      if (err instanceof GenerationGoneError) return { groups: [], gone: err.generations, reset: err.generations };
      if (err instanceof UnitNotUsableError) return { groups: [], gone: err.generations };
      throw err;
    }
    return { groups: groups.groups() };
  }

  /** Whether the rollup units read are still the generations planned with (a rebuild in between means: plan again). */
  private stillCurrent(plan: ReportPlan, budget: ReportBudget): Promise<boolean> {
    return budget.run(() => this.coverage!.stillCurrent(plan.rollup, budget.remainingMs()));
  }

  private get deadlineMs(): number {
    return this.opts.deadlineMs ?? this.opts.queryTimeoutMs;
  }
}
