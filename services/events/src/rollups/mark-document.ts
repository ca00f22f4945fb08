/**
 * One rollup unit's write marks (collection `rollup_marks`, `_id` = unitId). The writer bumps
 * `s` (started) before every insert that touches the unit and `f` (finished) once the insert's
 * outcome is known; `b` records the (s, f) the unit's cells were built for and which generation
 * of cells holds them. A unit's cells equal its raw events exactly when `b.s == s && b.f == f`.
 */
export interface MarkDocument {
  _id: string;
  /** Level (0 hour, 1 day, 2..6 blocks) and start (epoch ms) of the unit. */
  l: number;
  t: number;
  s: number;
  f: number;
  /** Time of the last mark change: a write in flight longer than ROLLUP_ABANDON_MS is presumed dead. */
  at: Date;
  /** Set by every write, cleared by the build that caught up: what the builder scans for. */
  dirty: boolean;
  b?: BuiltSnapshot;
  /** Generations being written by builders (removed on success or failure; swept when abandoned). */
  pending?: Array<{ g: string; at: Date }>;
  /**
   * Set by retention on a unit that reaches past its cutoff: some of the days it covers are gone,
   * so it is never built or used again (writes only bump s/f); it is deleted once wholly past.
   */
  retired?: true;
}

interface BuiltSnapshot {
  s: number;
  f: number;
  /** Cell generation id (`<unitId>@<gen>`): the `g` of this unit's current cells. */
  g: string;
  /**
   * Owners whose cells this generation lacks: a page of theirs here, or in a child it was merged
   * from, did not decode and could not be computed again (its raw events were past retention).
   * Their reports never use this unit; every other owner's do. Cleared by the next publish.
   */
  lost?: string[];
}

/** The cells of a unit may answer a report only when no write happened since they were built and retention left it whole. */
export function isBuilt(mark: Pick<MarkDocument, 's' | 'f' | 'b' | 'retired'>): boolean {
  return !mark.retired && mark.b !== undefined && mark.b.s === mark.s && mark.b.f === mark.f;
}

/** Whether a built unit lacks this owner's cells (BuiltSnapshot.lost). */
export function isLostFor(mark: Pick<MarkDocument, 'b'>, owner: string): boolean {
  return mark.b?.lost?.includes(owner) ?? false;
}
