import type { Db } from 'mongodb';
import { createLogger, type Logger } from '@cm/platform';
import { BrokenUnits } from './broken-units';
import { LegacyMigration } from './legacy-migration';
import { isExpiredDay } from '../retention/expired-buckets';
import type { CellStore } from './cell-store';
import type { RollupMarks } from './rollup-marks';
import { utcDayStart } from '../storage/time-units';
import { BUILT_LEVELS, DAY_LEVEL, LEVELS, parseUnitId, unitEnd } from './rollup-units';
import { ZONE_DAY_LEVEL } from './zone-days';
import { inShard, isFirstShard, type Shard } from './rollup-shard';
import { UnitBuilders } from './unit-builders';
import { UnitCommit, type BuildHooks } from './unit-commit';
import { UnitFailures, type FailureBackoff, type UnitFailure } from './unit-failures';
import type { UnitMark } from './unit-mark';

/** The levels made from a day's hours while those are in memory: 4-hour units and the day. */
const HOUR_PARENT_LEVELS = LEVELS.filter((l) => l > 0 && l <= DAY_LEVEL);

/** The default cap of cells per owner, family and unit (operations.md: ROLLUP_MAX_CELLS_PER_OWNER). */
const DEFAULT_MAX_CELLS_PER_OWNER = 100_000;

export interface RollupBuilderOptions {
  prefix: string;
  /** A unit is built only once it ended this long ago (late events then usually are in already). */
  graceMs: number;
  /** A write started but not finished this long ago is presumed dead (its process died mid-insert). */
  abandonMs: number;
  /** Dirty units looked at per pass. */
  batchUnits: number;
  /** Raw events of days past this are gone: their hours are never rebuilt (ROLLUP_RETENTION_DAYS may keep the rollups). */
  rawRetentionDays: number;
  /** Cells one owner may have in one family of one unit: past it that family of the owner is not kept (ROLLUP_MAX_CELLS_PER_OWNER). */
  maxCellsPerOwner?: number;
  /** Bytes per stored page (tests make it small to reach several pages). */
  maxPageBytes?: number;
  /**
   * Whether 4-hour units and days whose hours are all built in a pass are made from the hours'
   * tables in memory (default) or, like every larger unit, merged from their children's pages
   * (day-units.int.test.ts builds both ways and compares the pages).
   */
  parentsFromHours?: boolean;
  /** How long a unit whose build failed waits before it is tried again. */
  failureBackoff?: FailureBackoff;
  /**
   * This builder's part of the units when several build side by side (rollup threads): a day's
   * hours, 4-hour units and the day belong to shard `utc day number % count`, a larger unit to
   * `its index at its size % count`. Unset: every unit.
   */
  shard?: Shard;
  hooks?: BuildHooks;
  now?: () => Date;
  /** Where units pointing at missing cells, or holding pages that do not decode, are contained (rollup-feature.ts: logged and counted). */
  broken?: BrokenUnits;
  logger?: Logger;
}

export interface BuildPass {
  /** Units that became current, by level. */
  built: number[];
  /** Dirty units left for a later pass (not ready, or moved on while being built). */
  waiting: number;
  /** At the start of the pass: seconds since the oldest dirty hour became ready to build (0 when caught up). */
  lagSeconds: number;
  swept: number;
  /** Generations no mark points at, dropped by the orphan sweep (at most once per abandonMs). */
  orphans: number;
  /** Units whose build failed (given up; retried in a later pass), each reported on its own. */
  failed: UnitFailure[];
  /** Owners' families that passed ROLLUP_MAX_CELLS_PER_OWNER in a unit built this pass (read from smaller units or raw events). */
  overCap: OverCap[];
}

export interface OverCap {
  level: number;
  owner: string;
  family: string;
}

/**
 * One pass of the rollup builder: sweep abandoned generations, then build the dirty units that
 * are ready, hours first (from raw), then every larger unit (from its children) level by level.
 * Safe to run in several processes at once: every publish is a compare-and-set on the marks.
 */
export class RollupBuilder {
  private readonly commit: UnitCommit;
  private readonly builders: UnitBuilders;
  private readonly now: () => Date;
  private readonly failures: UnitFailures;
  private lastOrphanSweep = -Infinity;
  private readonly legacy: LegacyMigration;
  private migrated = false;
  private overCap: OverCap[] = [];

  constructor(
    db: Db,
    private readonly marks: RollupMarks,
    cells: CellStore,
    private readonly opts: RollupBuilderOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.commit = new UnitCommit(marks.collection, cells, opts.hooks);
    const failures = (this.failures = new UnitFailures(opts.failureBackoff));
    const outcomes = {
      built: (mark: UnitMark) => failures.built(mark.id),
      failed: (mark: UnitMark, err: unknown) => failures.failed(mark, err, this.now().getTime()),
      overCap: (level: number, owner: string, family: string) => this.overCap.push({ level, owner, family }),
    };
    this.legacy = new LegacyMigration({
      marks,
      cells,
      commit: this.commit,
      maxCellsPerOwner: opts.maxCellsPerOwner ?? DEFAULT_MAX_CELLS_PER_OWNER,
      rawRetentionDays: opts.rawRetentionDays,
      now: this.now,
      logger: opts.logger,
    });
    this.builders = new UnitBuilders({
      db,
      marks,
      cells,
      commit: this.commit,
      prefix: opts.prefix,
      maxCellsPerOwner: opts.maxCellsPerOwner ?? DEFAULT_MAX_CELLS_PER_OWNER,
      maxPageBytes: opts.maxPageBytes,
      now: this.now,
      outcomes,
      broken:
        opts.broken ??
        new BrokenUnits(
          marks.collection,
          cells,
          createLogger({ service: 'rollups', level: 'error', silent: true }),
          undefined,
          { rawRetentionDays: opts.rawRetentionDays, now: this.now },
        ),
    });
  }

  async runOnce(): Promise<BuildPass> {
    const now = this.now();
    // once per process, before anything is built: units of the first cell format rebuilt or converted
    // (these and the sweeps look at every unit: one builder of several does them)
    const sweeper = isFirstShard(this.opts.shard);
    if (!this.migrated) {
      if (sweeper) await this.legacy.run();
      this.migrated = true;
    }
    const swept = sweeper ? await this.commit.sweep(new Date(now.getTime() - this.opts.abandonMs)) : 0;
    let orphans = 0;
    if (sweeper && now.getTime() - this.lastOrphanSweep >= this.opts.abandonMs) {
      // lists every manifest: rare enough to cost nothing, often enough that leftovers do not pile up
      this.lastOrphanSweep = now.getTime();
      orphans = await this.commit.sweepOrphans(new Date(now.getTime() - this.opts.abandonMs));
    }
    const built = new Array<number>(ZONE_DAY_LEVEL + 1).fill(0);
    this.overCap = [];
    let waiting = 0;
    let oldestReady: number | undefined;
    // one scan of the marks per pass (a query by level would scan them again on the stand-in)
    // a retired unit (retention removed some of its days) is dirty after a late write but never built
    const dirty = (await this.marks.dirty()).filter((m) => !m.retired && inShard(m, this.opts.shard));
    // a unit whose build fails is given up alone: the pass goes on with every other unit
    this.failures.begin(new Set(dirty.map((m) => m.id)));
    const ready = new Map<number, UnitMark[]>();
    for (const level of BUILT_LEVELS) {
      const atLevel = dirty.filter((m) => m.level === level).sort((a, b) => a.start - b.start);
      const due = atLevel.filter((m) => this.isReady(m, now));
      const readyAt = due.filter((m) => !this.failures.waiting(m.id, now.getTime())).slice(0, this.opts.batchUnits);
      waiting += atLevel.length - readyAt.length;
      ready.set(level, readyAt);
      // an hour waiting after a failed build still counts as lag
      if (level === 0)
        for (const m of due)
          oldestReady = Math.min(oldestReady ?? Infinity, unitEnd({ level: 0, start: m.start }) + this.opts.graceMs);
    }
    // 4-hour units and days whose hours are all built in this pass are made from the hours' tables
    const fromHours = this.opts.parentsFromHours === false ? [] : HOUR_PARENT_LEVELS.flatMap((l) => ready.get(l)!);
    const taken = new Set<string>();
    for (const mark of await this.buildDays([...byDay(ready.get(0)!)], byDay(fromHours), taken)) built[mark.level]!++;
    // zone days last: their hours, built first, are current by then
    for (const level of BUILT_LEVELS.slice(1))
      // children built earlier in this pass are current now; a unit whose children are not waits
      for (const m of ready.get(level)!) if (!taken.has(m.id) && (await this.builders.buildMerged(m))) built[level]!++;
    const lagSeconds = oldestReady === undefined ? 0 : Math.max(0, (now.getTime() - oldestReady) / 1000);
    return { built, waiting, lagSeconds, swept, orphans, failed: this.failures.end(), overCap: this.overCap };
  }

  /**
   * The hours of each day, the next day's raw read started before this day is built
   * (hour-reads.ts), with the day's `parents` that can be made from its hours (`taken` gets those
   * the builds took on). The units that became current.
   */
  private async buildDays(
    days: readonly [number, UnitMark[]][],
    parents: ReadonlyMap<number, UnitMark[]>,
    taken: Set<string>,
  ): Promise<UnitMark[]> {
    const built: UnitMark[] = [];
    const open = (i: number) => (i < days.length ? this.builders.openHours(...days[i]!) : undefined);
    let ahead = open(0);
    try {
      for (let i = 0; i < days.length; i++) {
        const read = ahead!;
        ahead = open(i + 1);
        const [day, hours] = days[i]!;
        const out = await this.builders.buildHours(day, hours, read, parents.get(day));
        built.push(...out.built);
        for (const m of out.taken) taken.add(m.id);
      }
    } finally {
      // a build killed midway leaves the read opened ahead
      await ahead?.close();
    }
    return built;
  }

  /** Ended past the grace, no write in flight (or one presumed dead), and its raw events still kept. */
  private isReady(mark: UnitMark, now: Date): boolean {
    const t = now.getTime();
    // a mark of no known shape (a zone day of a zone the runtime no longer knows) is never built
    const unit = parseUnitId(mark.id);
    if (!unit || unitEnd(unit) + this.opts.graceMs > t) return false;
    if (mark.started !== mark.finished && t - mark.at.getTime() < this.opts.abandonMs) return false;
    // only hours read raw events; larger units merge children that are still exact
    if (mark.level === 0 && isExpiredDay(new Date(utcDayStart(mark.start)), now, this.opts.rawRetentionDays))
      return false;
    return true;
  }
}

function byDay(marks: readonly UnitMark[]): Map<number, UnitMark[]> {
  const out = new Map<number, UnitMark[]>();
  for (const m of marks) {
    const day = utcDayStart(m.start);
    out.set(day, [...(out.get(day) ?? []), m]);
  }
  return out;
}
