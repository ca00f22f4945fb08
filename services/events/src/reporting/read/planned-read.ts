import type { Db } from 'mongodb';
import { GenerationGoneError, type CellStore } from '../../rollups/cell-store';
import { DamagedPagesError, type DamagedPage } from '../../rollups/damaged-pages';
import type { ReportPlan } from '../plan/plan-report';
import { readCells, UnitNotUsableError } from './cell-reads';
import type { PageCache } from './page-cache';
import type { RawBucketRead } from './raw-bucket-reads';
import { readRaw } from './raw-reads';
import type { ReadPlan } from './read-plan';
import type { ReportBudget } from './report-budget';
import type { ReportGroup } from './report-group';
import { ReportGroups } from './report-groups';
import type { SharedStringIds } from './string-ids';

/** What one planned read needs (PlannedCountSource holds it). */
export interface PlannedReadDeps {
  db: Db;
  /** Day buckets aggregated at the same time. */
  concurrency: number;
  onBuckets?: (count: number) => void;
  onPlan?: (plan: ReportPlan) => void;
  /** `strings`: the process's string table, whose numbers cached pages keep across reports. */
  rollups?: { cells: CellStore; cache: PageCache; strings: SharedStringIds };
}

/**
 * A read's outcome: its groups, or why the report must plan again: `gone` generations (never
 * planned with again), of which `reset` are reset as broken, and `damaged` pages (to contain).
 */
export interface PlannedRead {
  groups: ReportGroup[];
  /** Planned generations without a page of the owner (readCells): the ones to check still current. */
  unpaged?: ReadonlySet<string>;
  gone?: readonly string[];
  reset?: readonly string[];
  damaged?: readonly DamagedPage[];
}

/**
 * Reads the plan's cells and raw buckets at the same time into one merge; one failing read stops
 * the other. A mark alone is not trusted: the manifests of the planned generations are checked
 * with the first pages (cell-reads.ts), and a generation without one, of the first page format
 * (not converted yet), or lacking a page, comes back as `gone` (the answer is discarded);
 * `reset`: those whose unit is reset (broken), never a first-format one (it may not be
 * rebuildable: the builder converts it). Pages that do not decode come back as `damaged` (the
 * answer is discarded too).
 */
export async function readPlanned(
  deps: PlannedReadDeps,
  plan: ReadPlan,
  steps: ReportPlan,
  reads: readonly RawBucketRead[],
  budget: ReportBudget,
): Promise<PlannedRead> {
  const groups = new ReportGroups(
    plan.aggregates,
    plan.maxGroups,
    plan.query.limit !== undefined,
    plan.maxGroupBytes,
    plan.ask,
    deps.rollups?.strings.forReport(),
  );
  deps.onBuckets?.(new Set(reads.map((r) => r.bucket)).size);
  deps.onPlan?.(steps);
  const rollups = deps.rollups;
  let unpaged: ReadonlySet<string> | undefined;
  try {
    [unpaged] = await Promise.all([
      rollups ? readCells(plan, steps.rollup, groups, budget, rollups.cells, rollups.cache) : undefined,
      readRaw(deps.db, plan, reads, groups, budget, deps.concurrency),
    ]).catch((err: unknown) => {
      // a generation gone or damaged is answered by planning again, which needs the budget
      if (!isReplanned(err)) budget.stop(err);
      throw err;
    });
  } catch (err) {
    if (err instanceof GenerationGoneError) return { groups: [], gone: err.generations, reset: err.generations };
    if (err instanceof UnitNotUsableError) return { groups: [], gone: err.generations, reset: err.reset };
    if (err instanceof DamagedPagesError) return { groups: [], damaged: err.pages };
    throw err;
  }
  return { groups: groups.groups(), unpaged };
}

/** Errors of a read that the report answers by planning again without the units they name. */
function isReplanned(err: unknown): boolean {
  return err instanceof GenerationGoneError || err instanceof UnitNotUsableError || err instanceof DamagedPagesError;
}
