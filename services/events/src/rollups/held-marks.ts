import type { WriteMarks } from '../consumer/bucket-writer';
import type { RollupMarks } from './rollup-marks';
import { touchedUnits, unitId, type UnitRef } from './rollup-units';

/** One `started` mark shared by every write to a unit for a while; `finished` once they are all done. */
export interface Hold {
  readonly id: string;
  readonly unit: UnitRef;
  /** When its started mark was sent: writes join it only within holdMs of that. */
  readonly since: number;
  /** When its mark's `at` was last sent (started mark or refresh). */
  refreshedAt: number;
  started: Promise<void>;
  /** Writes joined and not yet ended. */
  open: number;
  /** Its started mark may not be stored, or one of its writes has an unknown outcome: never finished (it also leaves `current`, so nothing new joins it). */
  failed: boolean;
  closing?: NodeJS.Timeout;
}

export interface HeldMarksOptions {
  /** A hold takes new writes for this long after its started mark; must stay well inside ROLLUP_ABANDON_MS. */
  holdMs: number;
  /** A hold with no write in flight is finished after this long without a new one. */
  lingerMs: number;
  /** While a hold has a write in flight, its mark's `at` is stored again this often (default holdMs); must stay well inside ROLLUP_ABANDON_MS. */
  refreshMs?: number;
  onError?: (err: unknown) => void;
  now?: () => number;
  /** ROLLUP_ZONES: each write also holds the day of each of these zones its hours fall in. */
  zones?: readonly string[];
}

/** The part of RollupMarks the holds use. */
export type MarkWrites = Pick<RollupMarks, 'start' | 'finish' | 'touch' | 'drain'>;

/**
 * The consumer's write marks, held (rollups/rollup-marks.ts has the protocol): a unit's started
 * mark stays open while writes keep coming (`holdMs`) and finishes `lingerMs` after the last
 * outcome, so the store pays one upsert per unit per hold instead of two per batch. Open holds
 * with a write in flight refresh their `at` every `refreshMs`, so a live writer is never taken
 * for dead; a `lost` write stops refreshing and leaves its unit dirty until ROLLUP_ABANDON_MS.
 * The full story: docs/architecture.md, "Rollups".
 */
export class HeldMarks implements WriteMarks<Hold[]> {
  private readonly current = new Map<string, Hold>();
  /** Holds with a write in flight: the ones whose `at` is kept fresh. */
  private readonly busy = new Set<Hold>();
  private refreshTimer?: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly refreshMs: number;

  constructor(
    private readonly marks: MarkWrites,
    private readonly opts: HeldMarksOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.refreshMs = opts.refreshMs ?? opts.holdMs;
  }

  /** Joins (or opens) the hold of every unit the instants touch; resolves once all their started marks are stored. */
  async begin(instants: readonly Date[]): Promise<Hold[]> {
    const at = this.now();
    const holds: Hold[] = [];
    const opened: Hold[] = [];
    for (const unit of touchedUnits(instants, this.opts.zones)) {
      const id = unitId(unit);
      let hold = this.current.get(id);
      if (!hold || at - hold.since >= this.opts.holdMs) {
        // a hold past its time takes no new writes; it is finished when its own writes end
        hold = { id, unit, since: at, refreshedAt: at, started: Promise.resolve(), open: 0, failed: false };
        this.current.set(id, hold);
        opened.push(hold);
      }
      clearTimeout(hold.closing);
      hold.closing = undefined;
      hold.open++;
      this.busy.add(hold);
      holds.push(hold);
    }
    this.startRefreshing();
    if (opened.length > 0) {
      const started = this.marks.start(opened.map((h) => h.unit));
      for (const hold of opened) {
        hold.started = started.catch((err: unknown) => {
          // its started mark may or may not be stored: never finish it (the unit stays dirty until presumed dead)
          hold.failed = true;
          if (this.current.get(hold.id) === hold) this.current.delete(hold.id);
          throw err;
        });
      }
    }
    try {
      await Promise.all(holds.map((h) => h.started));
    } catch (err) {
      // no insert follows: this write leaves its holds at once
      this.leave(holds);
      throw err;
    }
    return holds;
  }

  /** The write's outcome is known: it leaves its holds (finished marks follow when the holds close). */
  end(holds: readonly Hold[]): Promise<void> {
    this.leave(holds);
    return Promise.resolve();
  }

  /** The write's outcome is unknown (it may still land): it leaves its holds, which are never finished and no longer kept fresh for it. */
  lost(holds: readonly Hold[]): void {
    for (const hold of holds) {
      hold.failed = true;
      if (this.current.get(hold.id) === hold) this.current.delete(hold.id);
    }
    this.leave(holds);
  }

  /**
   * Stores `at` again on every unit whose hold has a write in flight and was not refreshed for
   * refreshMs (a timer calls this while writes are in flight; tests call it with their own clock).
   */
  async refresh(): Promise<void> {
    const at = this.now();
    // per unit: a newer hold's started mark refreshed the same mark document
    const latest = new Map<string, number>();
    for (const h of this.busy) latest.set(h.id, Math.max(latest.get(h.id) ?? -Infinity, h.refreshedAt));
    const due = [...this.busy].filter((h) => at - latest.get(h.id)! >= this.refreshMs);
    if (due.length === 0) return;
    const previous = due.map((h) => h.refreshedAt);
    for (const hold of due) hold.refreshedAt = at;
    const units = new Map(due.map((h) => [h.id, h.unit]));
    try {
      await this.marks.touch([...units.values()]);
    } catch (err) {
      // tried again on the next tick
      due.forEach((h, i) => (h.refreshedAt = previous[i]!));
      this.opts.onError?.(err);
    }
  }

  /** Finishes every hold with no write in flight and waits for all marks to be stored (graceful stop, after the consumer). */
  async drain(): Promise<void> {
    for (const hold of [...this.current.values()]) if (hold.open === 0) this.close(hold);
    await this.marks.drain();
  }

  private leave(holds: readonly Hold[]): void {
    for (const hold of holds) {
      hold.open--;
      if (hold.open > 0) continue;
      this.busy.delete(hold);
      if (this.busy.size === 0) this.stopRefreshing();
      if (this.current.get(hold.id) !== hold) this.close(hold);
      else if (!hold.closing) {
        hold.closing = setTimeout(() => this.close(hold), this.opts.lingerMs);
        hold.closing.unref();
      }
    }
  }

  private startRefreshing(): void {
    if (this.refreshTimer || this.busy.size === 0) return;
    // ticks twice per interval: a mark is never more than 1.5 x refreshMs old while its write is in flight
    this.refreshTimer = setInterval(() => void this.refresh(), Math.max(1, Math.floor(this.refreshMs / 2)));
    this.refreshTimer.unref();
  }

  private stopRefreshing(): void {
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  private close(hold: Hold): void {
    clearTimeout(hold.closing);
    hold.closing = undefined;
    if (hold.open > 0 || hold.failed) return;
    if (this.current.get(hold.id) === hold) this.current.delete(hold.id);
    this.marks.finish([hold.unit]).catch((err: unknown) => this.opts.onError?.(err));
  }
}
