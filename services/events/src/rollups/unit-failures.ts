import type { UnitMark } from './unit-mark';

/** A unit whose build failed in a pass. */
export interface UnitFailure {
  unit: string;
  level: number;
  error: string;
  /** The first failure since the unit last built (or since the process started): what is logged. */
  first: boolean;
}

export interface FailureBackoff {
  /** Wait after the first failure before the unit is tried again; doubles per failure in a row. */
  baseMs: number;
  maxMs: number;
}

const DEFAULT_FAILURE_BACKOFF: FailureBackoff = { baseMs: 1000, maxMs: 10 * 60_000 };

/**
 * Units whose build failed, kept in memory by the builder: a failed unit is tried again after a
 * growing wait (a unit that always fails costs one attempt per 10 minutes, not one per pass),
 * and only its first failure in a row is reported for logging. Until it builds, its spans are
 * answered from smaller units or raw events, and the units above it wait for it; every other
 * unit is built as usual.
 */
export class UnitFailures {
  private readonly failing = new Map<string, { count: number; retryAt: number }>();
  private pass: UnitFailure[] = [];

  constructor(private readonly backoff: FailureBackoff = DEFAULT_FAILURE_BACKOFF) {}

  /** Starts a pass: forgets units that are no longer dirty (built elsewhere, or dropped). */
  begin(dirty: ReadonlySet<string>): void {
    this.pass = [];
    for (const unit of this.failing.keys()) if (!dirty.has(unit)) this.failing.delete(unit);
  }

  /** The failures of the pass since begin. */
  end(): UnitFailure[] {
    return this.pass;
  }

  waiting(unit: string, now: number): boolean {
    const seen = this.failing.get(unit);
    return seen !== undefined && now < seen.retryAt;
  }

  failed(mark: UnitMark, err: unknown, now: number): void {
    const count = (this.failing.get(mark.id)?.count ?? 0) + 1;
    this.failing.set(mark.id, {
      count,
      retryAt: now + Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** Math.min(count - 1, 30)),
    });
    this.pass.push({
      unit: mark.id,
      level: mark.level,
      error: err instanceof Error ? err.message : String(err),
      first: count === 1,
    });
  }

  built(unit: string): void {
    this.failing.delete(unit);
  }
}
