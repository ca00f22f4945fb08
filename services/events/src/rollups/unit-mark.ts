/**
 * One rollup unit's write marks, as the builder and the report planner see them (stored in
 * `rollup_marks` under short field names: mark-document.ts maps them). Every write that touches
 * the unit bumps `started` before its insert and `finished` once the insert's outcome is known;
 * `built` records the (started, finished) the unit's cells were built for and which generation
 * of cells holds them. A unit's cells equal its raw events exactly when `built` matches both.
 */
export interface UnitMark {
  /** The unit id (rollup-units.ts unitId). */
  id: string;
  /** Level (rollup-units.ts: 0 an hour .. 9 a 32-day block, 10 a zone day) and start (epoch ms) of the unit. */
  level: number;
  start: number;
  started: number;
  finished: number;
  /** Time of the last mark change: a write in flight longer than ROLLUP_ABANDON_MS is presumed dead. */
  at: Date;
  /** Set by every write, cleared by the build that caught up: what the builder scans for. */
  dirty: boolean;
  built?: BuiltCells;
  /** Generations being written by builders (removed on success or failure; swept when abandoned). */
  pending?: PendingGeneration[];
  /**
   * Set by retention on a unit that reaches past its cutoff: some of the days it covers are gone,
   * so it is never built or used again (writes only bump started/finished); it is deleted once wholly past.
   */
  retired?: boolean;
}

/** What a unit's current cells were built for. */
interface BuiltCells {
  started: number;
  finished: number;
  /** Cell generation id (`<unitId>@<gen>`): the `g` of this unit's current cells. */
  generation: string;
  /**
   * Owners whose cells this generation lacks: a page of theirs here, or in a child it was merged
   * from, did not decode and could not be computed again (its raw events were past retention).
   * Their reports never use this unit; every other owner's do. Cleared by the next publish.
   */
  lost?: string[];
}

interface PendingGeneration {
  generation: string;
  /** When it was reserved. */
  at: Date;
}

/** The cells of a unit may answer a report only when no write happened since they were built and retention left it whole. */
export function isBuilt(mark: Pick<UnitMark, 'started' | 'finished' | 'built' | 'retired'>): boolean {
  return (
    !mark.retired &&
    mark.built !== undefined &&
    mark.built.started === mark.started &&
    mark.built.finished === mark.finished
  );
}

/** Whether a built unit lacks this owner's cells (BuiltCells.lost). */
export function isLostFor(mark: Pick<UnitMark, 'built'>, owner: string): boolean {
  return mark.built?.lost?.includes(owner) ?? false;
}
