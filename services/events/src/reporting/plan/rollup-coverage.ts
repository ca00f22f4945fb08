import { isBuilt, isLostFor, type UnitMark } from '../../rollups/unit-mark';
import { DAY_LEVEL, LEVELS, parseUnitId, unitId, unitSizeMs, type UnitRef } from '../../rollups/rollup-units';
import { canonicalZone, ZONE_DAY_FAMILIES, ZONE_DAY_LEVEL } from '../../rollups/zone-days';
import { HOUR_MS } from '../../storage/time-units';
import {
  checkPlanSize,
  planReportYielding,
  spansToLookUp,
  type BuiltUnit,
  type Coverage,
  type PlanSpan,
  type RollupStep,
} from './plan-report';
import { outsideEndedZoneDays, zoneDayIdChunks } from './zone-day-coverage';

const ID_CHUNK = 2000;

/** How a load queries (the report's budget): each query's maxTimeMS, and `run`, which starts no query once the report must stop. */
export interface LoadBudget {
  remainingMs(): number;
  run<T>(query: () => Promise<T>): Promise<T>;
}

/** Ids of the units of the levels that overlap the spans, in chunks: never more than one chunk is built at a time. */
function* unitIdChunks(
  levels: readonly number[],
  spans: ReadonlyArray<{ from: number; to: number }>,
): Generator<string[]> {
  let chunk: string[] = [];
  for (const level of levels) {
    const size = unitSizeMs(level);
    for (const span of spans) {
      for (let start = Math.floor(span.from / size) * size; start < span.to; start += size) {
        chunk.push(unitId({ level, start }));
        if (chunk.length === ID_CHUNK) {
          yield chunk;
          chunk = [];
        }
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * Ids of the sub-day units (4-hour blocks, hours) a plan of the spans reads when every unit is
 * built: at each point the largest aligned unit that fits (planReport's walk), past what no whole
 * hour fits. In chunks, as unitIdChunks; the walk is per unit, bounded by the plan's size.
 */
function* wholeSubDayUnitChunks(spans: readonly PlanSpan[]): Generator<string[]> {
  let chunk: string[] = [];
  for (const span of spans) {
    let at = span.start;
    while (at < span.end) {
      const level = LEVELS.findLast((l) => at % unitSizeMs(l) === 0 && at + unitSizeMs(l) <= span.end);
      if (level === undefined) {
        at = (Math.floor(at / HOUR_MS) + 1) * HOUR_MS;
        continue;
      }
      if (level < DAY_LEVEL) chunk.push(unitId({ level, start: at }));
      if (chunk.length === ID_CHUNK) {
        yield chunk;
        chunk = [];
      }
      at += unitSizeMs(level);
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * How a marks lookup is made: `forPlanning`, only the fields a plan reads; `fresh`, from the store
 * even where a view of the marks holds them (a report planning again after a unit was rebuilt).
 */
export interface MarksReadOptions {
  forPlanning?: boolean;
  maxTimeMS?: number;
  fresh?: boolean;
}

/** Where a report's coverage reads the marks: the store (rollups/rollup-marks.ts), or a view of it (marks-view.ts). */
export interface CoverageMarks {
  byIds(ids: readonly string[], opts?: MarksReadOptions): Promise<UnitMark[]>;
  builtGenerations(ids: readonly string[], maxTimeMS: number): Promise<Map<string, string>>;
}

/** Whose report a coverage is for (RollupCoverage.load). */
export interface CoverageScope {
  owner?: string;
  unusable?: ReadonlySet<string>;
  /**
   * The report's time zone: its days are looked up too when it is one of ROLLUP_ZONES and the
   * report reads a family zone days keep (`family`, zone-days.ts ZONE_DAY_FAMILIES).
   */
  zone?: string;
  /** The id of the family the report reads (families.ts); without it, no zone day is looked up. */
  family?: string;
  /** Read every mark from the store, not from a view of the marks (MarksReadOptions). */
  fresh?: boolean;
}

export interface OwnerCoverage extends Coverage {
  /** Units built without the owner's cells, by id (their spans come from smaller units, or are refused). */
  lost: Map<string, UnitRef>;
  /** Starts of the hours looked up that have a mark. */
  written: number[];
}

/**
 * Which rollup units a report may use right now, read from the marks top-down so a long range
 * never reads every hour mark: days and larger blocks first (2,000 ids a query), then each
 * sub-day level (4h, 1h) only where the plan so far still reads raw events (edges, zone days
 * that do not align with UTC days, units not built). In a configured zone (ROLLUP_ZONES), its
 * days inside the spans are asked for with the days and blocks.
 */
export class RollupCoverage {
  constructor(
    private readonly marks: CoverageMarks,
    private readonly zones: readonly string[] = [],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * `scope`: the report's owner, whose units built without its cells (`built.lost`) are not covered
   * and come back in `lost`, and generations the report found unusable (never covered). `written`:
   * the starts of the hours looked up that have a mark (some write reached them), which a span
   * the report must read raw past retention is checked against (reporting/read/lost-spans.ts).
   */
  async load(spans: readonly PlanSpan[], budget: LoadBudget, scope: CoverageScope = {}): Promise<OwnerCoverage> {
    checkPlanSize(spans);
    const built = new Map<string, BuiltUnit>();
    const found = { built, lost: new Map<string, UnitRef>(), written: [] as number[], ...scope };
    if (spans.length === 0) return found;
    let from = Infinity;
    let to = -Infinity;
    for (const s of spans) {
      from = Math.min(from, s.start);
      to = Math.max(to, s.end);
    }
    const upper = LEVELS.filter((level) => level >= DAY_LEVEL);
    // series spans lie within [from, to] (at most the range cap): checked again so the loops stay bounded
    checkPlanSize([{ start: from, end: to }]);
    const asked = new Set<string>();
    const zone = this.zoneDaysOf(scope);
    // the days and blocks over the whole range and, beside them, the 4-hour units and hours a plan
    // reads where every unit is built (a zone's days, a range's edges), and in a configured zone
    // its own days, whose smaller units only where they have not ended: one round trip then
    await Promise.all([
      this.find(found, unitIdChunks(upper, [{ from, to }]), budget, asked),
      this.find(
        found,
        wholeSubDayUnitChunks(zone === undefined ? spans : outsideEndedZoneDays(zone, spans, this.now())),
        budget,
        asked,
      ),
      ...(zone !== undefined ? [this.find(found, zoneDayIdChunks(zone, spans, ID_CHUNK), budget, asked)] : []),
    ]);
    // where units are not built (recent or dirty ones), the smaller units under them, level by level
    for (const level of LEVELS.filter((l) => l < DAY_LEVEL).reverse()) {
      const lookUp = spansToLookUp(await planReportYielding(spans, { built }), level);
      if (lookUp.length === 0) break;
      await this.find(found, unitIdChunks([level], lookUp), budget, asked);
    }
    return found;
  }

  /**
   * The configured zone whose days this report may read, or undefined: a zone day holds only the
   * families of ZONE_DAY_FAMILIES, and a report of another family must never read one (its pages
   * there are not missing for want of events, they were never kept).
   */
  private zoneDaysOf(scope: CoverageScope): string | undefined {
    if (scope.zone === undefined || scope.family === undefined || !ZONE_DAY_FAMILIES.includes(scope.family))
      return undefined;
    const canonical = canonicalZone(scope.zone);
    return canonical !== undefined && this.zones.includes(canonical) ? canonical : undefined;
  }

  /**
   * After the cells were read: these units still point at the generation that was read. A unit
   * rebuilt meanwhile may have had its old cells dropped mid-read, so the caller re-plans. Only
   * units in which the owner had no page need it: a page read proves its generation was there.
   */
  async stillCurrent(steps: readonly RollupStep[], maxTimeMS: number): Promise<boolean> {
    if (steps.length === 0) return true;
    const ids = [...new Set(steps.map((s) => unitId(s.unit)))];
    const now = await this.marks.builtGenerations(ids, maxTimeMS);
    return steps.every((s) => now.get(unitId(s.unit)) === s.g);
  }

  /**
   * Marks by `_id` only: hash lookups, where a query by level and time would scan the marks on the
   * stand-in. One chunk at a time, each spent through the budget: a report past its deadline (or
   * whose client left) issues no further query.
   */
  private async find(
    found: OwnerCoverage & CoverageScope & { built: Map<string, BuiltUnit> },
    chunks: Iterable<string[]>,
    budget: LoadBudget,
    asked: Set<string>,
  ): Promise<void> {
    for (const chunk of chunks) {
      // a mark already asked for by this load is not asked again
      const ids = chunk.filter((id) => !asked.has(id));
      if (ids.length === 0) continue;
      for (const id of ids) asked.add(id);
      const marks = await budget.run(() =>
        this.marks.byIds(ids, { forPlanning: true, fresh: found.fresh, maxTimeMS: budget.remainingMs() }),
      );
      for (const mark of marks) {
        if (mark.level === 0) found.written.push(mark.start);
        if (!isBuilt(mark) || found.unusable?.has(mark.built!.generation)) continue;
        // a zone day's zone is in its id
        const unit = mark.level === ZONE_DAY_LEVEL ? parseUnitId(mark.id) : { level: mark.level, start: mark.start };
        if (!unit) continue;
        if (found.owner !== undefined && isLostFor(mark, found.owner)) found.lost.set(mark.id, unit);
        else found.built.set(mark.id, { unit, g: mark.built!.generation });
      }
    }
  }
}
