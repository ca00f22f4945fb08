import type { UnitMark } from '../../rollups/unit-mark';
import type { CoverageMarks, MarksReadOptions } from './rollup-coverage';

export interface MarksViewOptions {
  /**
   * The oldest marks a report may plan with (REPORT_MARKS_MAX_AGE_MS): the view is read again
   * every half of it while reports ask, and a report finding it older reads the store itself.
   */
  maxAgeMs: number;
  /** Units held at most; a report asking for more reads the rest from the store. */
  maxUnits?: number;
  /** A unit no report asked for in this long is let go; once no report asked for any, the view stops refreshing. */
  idleMs?: number;
  /** A failed refresh (the store slow or down), with how many failed in a row: reports read the store once the view is too old. */
  onRefreshFailed?: (err: unknown, inARow: number) => void;
  /** Where each report's marks came from: `view` (held, fresh enough) or `store` (some read now). */
  onMarks?: (from: 'view' | 'store') => void;
  now?: () => number;
}

/** Enough for a few hundred long reports' days and blocks; one query of the store per refresh. */
const MARKS_VIEW_MAX_UNITS = 2000;
const MARKS_VIEW_IDLE_MS = 60_000;

interface Held {
  /** The unit's planning fields, or null: no mark is stored for it (nothing was ever written there). */
  mark: UnitMark | null;
  /** When the read that gave `mark` started: every mark write finished before then is in it. */
  asOf: number;
  /** When a report last asked for it. */
  asked: number;
}

/**
 * The planning fields of the rollup marks reports ask for, held by the reporting process and read
 * again in the background every `maxAgeMs / 2` while reports keep asking. A report plans with
 * them when the last refresh started at most `maxAgeMs` ago (so every mark written before then is
 * in it), and reads from the store only the units the view does not hold: a report then makes no
 * store call at all when its pages are cached. A report therefore counts every event stored at
 * least `maxAgeMs` before it was asked (and most newer ones); with the view too old (refreshes
 * failing, or none since the process was idle) it reads the store as if there were no view.
 *
 * Planning with older marks never gives a wrong answer beyond that bound: a unit since built is
 * read from smaller units or raw events, a unit since rebuilt whose old pages are gone makes the
 * report plan again from the store (`fresh`), a unit dirtied since counts what it held then.
 */
export class MarksView implements CoverageMarks {
  private readonly held = new Map<string, Held>();
  private lastAsked = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private stopped = false;
  private failedInARow = 0;
  private readonly waiting: Array<{ after: number; resolve: () => void }> = [];
  private readonly now: () => number;
  private readonly maxUnits: number;
  private readonly idleMs: number;

  constructor(
    /** What the view reads from: the store's marks (rollups/rollup-marks.ts RollupMarks). */
    private readonly source: CoverageMarks,
    private readonly opts: MarksViewOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.maxUnits = opts.maxUnits ?? MARKS_VIEW_MAX_UNITS;
    this.idleMs = opts.idleMs ?? MARKS_VIEW_IDLE_MS;
  }

  async byIds(ids: readonly string[], opts: MarksReadOptions = {}): Promise<UnitMark[]> {
    if (!opts.forPlanning) return this.source.byIds(ids, opts);
    if (this.opts.maxAgeMs <= 0 || this.stopped) {
      this.opts.onMarks?.('store');
      return this.source.byIds(ids, opts);
    }
    const now = this.now();
    this.lastAsked = now;
    this.schedule();
    const oldest = now - this.opts.maxAgeMs;
    const out: UnitMark[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const held = opts.fresh ? undefined : this.held.get(id);
      if (held === undefined || held.asOf < oldest) missing.push(id);
      else {
        held.asked = now;
        if (held.mark) out.push(held.mark);
      }
    }
    this.opts.onMarks?.(missing.length === 0 ? 'view' : 'store');
    if (missing.length === 0) return out;
    const read = await this.source.byIds(missing, opts);
    this.hold(missing, read, now);
    return out.length === 0 ? read : [...out, ...read];
  }

  /** Always from the store: the check after a read that the units read still point at their generations. */
  builtGenerations(ids: readonly string[], maxTimeMS: number): Promise<Map<string, string>> {
    return this.source.builtGenerations(ids, maxTimeMS);
  }

  /**
   * Resolves once a refresh that started after this call (in a later millisecond) has finished,
   * at once when the view is not in use: from then on every report plans with marks at least as
   * new as this call. For a caller that wrote events and wants the next reports to count them.
   */
  caughtUp(): Promise<void> {
    if (this.stopped || this.opts.maxAgeMs <= 0 || this.timer === undefined) return Promise.resolve();
    const after = this.now();
    return new Promise((resolve) => this.waiting.push({ after, resolve }));
  }

  /** Stops refreshing; later reports read the store. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.refreshing;
    this.held.clear();
    for (const w of this.waiting.splice(0)) w.resolve();
  }

  /** How many units the view holds (for tests and the operator). */
  get size(): number {
    return this.held.size;
  }

  /** Marks read by a lookup that started at `asOf`. */
  private hold(ids: readonly string[], read: readonly UnitMark[], asOf: number): void {
    const byId = new Map(read.map((m) => [m.id, m]));
    for (const id of ids) {
      const held = this.held.get(id);
      if (held) {
        // a refresh that started later may have come back first
        if (held.asOf <= asOf) Object.assign(held, { mark: byId.get(id) ?? null, asOf });
        held.asked = asOf;
      } else if (this.held.size < this.maxUnits) this.held.set(id, { mark: byId.get(id) ?? null, asOf, asked: asOf });
    }
  }

  /** The next refresh, `maxAgeMs / 2` from now, unless one is due already. */
  private schedule(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(1, Math.floor(this.opts.maxAgeMs / 2)));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const started = this.now();
    // idle: no report asked lately. The view goes stale; the next report reads the store and starts it again
    if (started - this.lastAsked > this.idleMs) {
      this.timer = undefined;
      this.held.clear();
      for (const w of this.waiting.splice(0)) w.resolve();
      return;
    }
    for (const [id, held] of this.held) if (started - held.asked > this.idleMs) this.held.delete(id);
    this.refreshing = this.refresh(started);
    await this.refreshing;
    this.refreshing = undefined;
    this.timer = undefined;
    this.schedule();
  }

  private async refresh(started: number): Promise<void> {
    const ids = [...this.held.keys()];
    try {
      const read = ids.length > 0 ? await this.source.byIds(ids, { forPlanning: true, maxTimeMS: this.queryMs() }) : [];
      const byId = new Map(read.map((m) => [m.id, m]));
      for (const id of ids) {
        const held = this.held.get(id);
        // a report's lookup that started later may have read it meanwhile: the newer read stays
        if (held && held.asOf <= started) Object.assign(held, { mark: byId.get(id) ?? null, asOf: started });
      }
      // units a report added meanwhile were read after `started`: the whole view is as of `started` at least
      this.failedInARow = 0;
      for (let i = this.waiting.length - 1; i >= 0; i--) {
        if (this.waiting[i]!.after < started) this.waiting.splice(i, 1)[0]!.resolve();
      }
    } catch (err) {
      this.opts.onRefreshFailed?.(err, ++this.failedInARow);
    }
  }

  /** A refresh gives up long before its results would be too old to use. */
  private queryMs(): number {
    return Math.max(100, this.opts.maxAgeMs * 4);
  }
}
