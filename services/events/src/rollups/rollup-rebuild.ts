import { ValidationError } from '@cm/platform';
import { firstKeptDay } from '../retention/expired-buckets';
import type { RollupMarks } from './rollup-marks';
import { DAY_MS, HOUR_MS, utcDayStart } from '../storage/time-units';
import { LEVEL_NAMES, LEVELS } from './rollup-units';

export interface RebuildResult {
  /** First and last UTC day (YYYY-MM-DD) marked. */
  from: string;
  to: string;
  /** Hours marked for rebuilding (with every day and block above them). */
  hours: number;
}

export interface RollupStatus {
  /** Units written to since they were built, by size (answered from smaller units or raw events until rebuilt). */
  dirty_units: Record<string, number>;
  /** The oldest dirty hour (ISO 8601), or null. */
  oldest_dirty_hour: string | null;
  /** Generations being written now (or left by a builder that died: swept after ROLLUP_ABANDON_MS). */
  pending_generations: number;
}

/**
 * The operator's rollup commands. A rebuild marks every hour of the days like a write would
 * (started, then finished), so the builder recomputes those hours from raw events and every unit
 * above them; until it did, reports answer those spans from smaller units or raw events (exact,
 * only slower). Days whose raw events retention dropped cannot be rebuilt and are refused.
 */
export class RollupRebuild {
  constructor(
    private readonly marks: RollupMarks,
    private readonly opts: { rawRetentionDays: number; maxDays: number },
  ) {}

  async rebuild(fromDay: Date, toDay: Date, now = new Date()): Promise<RebuildResult> {
    const from = utcDayStart(fromDay.getTime());
    const to = utcDayStart(toDay.getTime());
    if (from > to) throw new ValidationError('invalid body', [{ field: 'to', message: 'must not be before from' }]);
    if ((to - from) / DAY_MS + 1 > this.opts.maxDays)
      throw new ValidationError('invalid body', [
        { field: 'from', message: `at most ${this.opts.maxDays} days at a time` },
      ]);
    const firstRaw = firstKeptDay(now, this.opts.rawRetentionDays);
    if (from < firstRaw) {
      throw new ValidationError('invalid body', [
        {
          field: 'from',
          message: `days before ${day(firstRaw)} have no raw events any more (RETENTION_DAYS); their rollups cannot be rebuilt`,
        },
      ]);
    }
    const hours = Array.from({ length: ((to - from) / DAY_MS + 1) * 24 }, (_, i) => new Date(from + i * HOUR_MS));
    const ids = await this.marks.begin(hours);
    await this.marks.end(ids);
    return { from: day(from), to: day(to), hours: hours.length };
  }

  async status(): Promise<RollupStatus> {
    // retired units (retention removed some of their days) are never built: not counted as waiting
    const dirty = (await this.marks.dirtyUnits()).filter((m) => !m.retired);
    const pending = await this.marks.countPendingGenerations();
    // the kept sizes always; a size no longer kept only while units of it wait for the upgrade's drop
    const counts = Object.fromEntries(LEVELS.map((level) => [LEVEL_NAMES[level]!, 0]));
    let oldest: number | undefined;
    for (const m of dirty) {
      counts[LEVEL_NAMES[m.level] ?? String(m.level)] = (counts[LEVEL_NAMES[m.level] ?? String(m.level)] ?? 0) + 1;
      if (m.level === 0) oldest = Math.min(oldest ?? Infinity, m.start);
    }
    return {
      dirty_units: counts,
      oldest_dirty_hour: oldest === undefined ? null : new Date(oldest).toISOString(),
      pending_generations: pending,
    };
  }
}

function day(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
