import type { Db } from 'mongodb';
import { firstKeptDay } from '../../retention/expired-buckets';
import type { BrokenUnits } from '../../rollups/broken-units';
import type { CellStore } from '../../rollups/cell-store';
import { BUILT_LEVELS } from '../../rollups/rollup-units';
import { EMPTY_COVERAGE, planSteps, type Coverage, type ReportPlan } from '../plan/plan-report';
import { reportSpans } from '../plan/report-spans';
import { RollupCoverage, type CoverageMarks, type OwnerCoverage } from '../plan/rollup-coverage';
import { runYielding } from '../plan/sliced-work';
import type { BudgetTerms, CountSource } from './count-source';
import { LostSpans } from './lost-spans';
import { PageCache } from './page-cache';
import { SharedStringIds } from './string-ids';
import { readPlanned, type PlannedReadDeps } from './planned-read';
import { rawBucketReadSteps } from './raw-bucket-reads';
import { readsRawLikely } from './raw-likely';
import type { ReadPlan } from './read-plan';
import { ReportBudget } from './report-budget';
import type { ReportGroup } from './report-group';
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
  /**
   * RETENTION_DAYS: raw events of days past it are gone, so the span of a rollup unit this
   * owner's cells of are damaged in cannot be read from them (the report is refused: 503).
   * Default: raw events are never gone.
   */
  rawRetentionDays?: number;
  /** Without rollups every report is answered from raw events (the reference the differential test compares with). */
  rollups?: {
    marks: CoverageMarks;
    cells: CellStore;
    broken?: Pick<BrokenUnits, 'reset' | 'damaged'>;
    /** Decoded pages kept between reports (default: 64 MiB). */
    cache?: PageCache;
    /** ROLLUP_ZONES: a report in one of these zones may read its days as units of their own. */
    zones?: readonly string[];
  };
}

/** A rollup unit rebuilt while a report read it: plan again, then give up on rollups for this report. */
const PLAN_ATTEMPTS = 3;
/**
 * Plans again after damaged pages: each round leaves out every unit it found damaged, so a level
 * at least, and a report meets at most one round per level (zone day, 32-day block down to the hour); past
 * that a round counts as a rebuild race.
 */
const DAMAGED_ROUNDS = BUILT_LEVELS.length + 1;

/**
 * Counts a report: plans it over the rollup units that are built right now (planReport), reads
 * their pages and the raw parts (edges, dirty hours, what is not rolled up) and merges both as
 * they stream in, within the report's budget (deadline, client gone, group cap).
 */
export class PlannedCountSource implements CountSource {
  private readonly coverage?: RollupCoverage;
  private readonly reads: PlannedReadDeps;

  constructor(
    private readonly db: Db,
    private readonly opts: PlannedCountOptions,
  ) {
    this.coverage = opts.rollups ? new RollupCoverage(opts.rollups.marks, opts.rollups.zones, opts.now) : undefined;
    const { concurrency, onBuckets, onPlan, rollups } = opts;
    this.reads = {
      db,
      concurrency,
      onBuckets,
      onPlan,
      rollups: rollups && {
        cells: rollups.cells,
        cache: rollups.cache ?? new PageCache(64 * 1024 * 1024),
        // one per process, as the page cache: the cached pages keep their strings' numbers in it
        strings: new SharedStringIds(),
      },
    };
  }

  async count(plan: ReadPlan, terms?: BudgetTerms): Promise<ReportGroup[]> {
    const budget = new ReportBudget(terms, { deadlineMs: this.deadlineMs, perQueryMs: this.opts.queryTimeoutMs });
    try {
      // the day buckets that exist: an open range needs them for its spans; a closed range or a
      // series needs them only for its raw reads, so they are listed while its coverage loads
      // when it likely reads raw events, else only once its plan has raw steps (a report over
      // built units then makes no listing). Either way the listing is taken during this report
      let listing: Promise<string[]> | undefined;
      const list = (): Promise<string[]> => {
        if (!listing) {
          listing = budget.run(() => this.listBuckets());
          listing.catch(() => undefined); // awaited when needed; not an unhandled rejection meanwhile
        }
        return listing;
      };
      const { from, to } = plan.query.range;
      const open = plan.query.series === undefined && (from === undefined || to === undefined);
      const existing = open ? await list() : [];
      let buckets: Set<string> | undefined;
      const now = (this.opts.now ?? Date.now)();
      const spans = reportSpans(plan.query, existing, {
        prefix: this.opts.prefix,
        maxRangeDays: this.opts.maxRangeDays,
        now,
      });
      if (this.coverage === undefined || plan.family === undefined || readsRawLikely(spans, now)) void list();
      // generations found unusable while reading: never planned with again by this report
      const unusable = new Set<string>();
      // units whose cells of this owner do not decode (or were left out for that): their spans
      // are read from smaller units, or from raw events only while those are kept
      const lost = new LostSpans(this.rawKeptFrom());
      const owner = plan.query.ownerId;
      const prefix = this.opts.prefix;
      let races = 0;
      let damagedRounds = 0;
      for (;;) {
        const useRollups = this.coverage !== undefined && plan.family !== undefined && races < PLAN_ATTEMPTS - 1;
        // which spans the built rollup units answer (coverage), and the plan over them; without rollups all is raw.
        // The load spends each of its queries through the budget itself (LoadBudget): no wrapper around it
        const coverage: Coverage & Partial<OwnerCoverage> = useRollups
          ? await this.coverage!.load(spans, budget, {
              owner,
              unusable,
              zone: plan.query.timeZone,
              family: plan.family?.id,
              // planning again after a unit was rebuilt mid-read: the marks as they are now
              fresh: races > 0,
            })
          : EMPTY_COVERAGE;
        const steps = await runYielding(planSteps(spans, coverage));
        lost.check(steps.raw, coverage);
        if (steps.raw.length > 0) buckets ??= new Set(await list());
        const reads = buckets ? await runYielding(rawBucketReadSteps(steps.raw, prefix, buckets)) : [];
        const read = await readPlanned(this.reads, plan, steps, reads, budget);
        if (read.damaged) {
          // contained like a unit pointing at missing cells: reset when it can be rebuilt, else
          // this owner is left out of it (BrokenUnits.damaged); planned again without it
          const damaged = read.damaged;
          for (const p of damaged) unusable.add(p.g);
          lost.noteDamaged(damaged);
          await budget.run(async () => {
            await this.opts.rollups!.broken?.damaged(damaged, 'report');
          });
          if (++damagedRounds > DAMAGED_ROUNDS) races++;
          continue;
        }
        if (read.gone) {
          // a unit rebuilt meanwhile, or one pointing at missing cells: the latter is reset
          // (compare-and-set, so a rebuilt one is left alone) and the report planned again without it
          for (const g of read.gone) unusable.add(g);
          const reset = read.reset ?? [];
          if (reset.length > 0)
            await budget.run(() => this.opts.rollups!.broken?.reset(reset, 'report') ?? Promise.resolve(0));
          races++;
          continue;
        }
        // a unit in which the owner had no page must still be the generation planned with: a rebuild
        // in between may have dropped its pages mid-read (plan again); a unit read whole needs no check
        if (!useRollups) return read.groups;
        const unpaged = steps.rollup.filter((s) => read.unpaged?.has(s.g) ?? true);
        if (await budget.run(() => this.coverage!.stillCurrent(unpaged, budget.remainingMs()))) return read.groups;
        races++;
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

  /** The first day whose raw events are kept (undefined: all are). */
  private rawKeptFrom(): number | undefined {
    const days = this.opts.rawRetentionDays;
    return days === undefined ? undefined : firstKeptDay(new Date((this.opts.now ?? Date.now)()), days);
  }

  private get deadlineMs(): number {
    return this.opts.deadlineMs ?? this.opts.queryTimeoutMs;
  }
}
