import { UnavailableError } from '@cm/platform';
import type { BudgetTerms } from './count-source';

/** The client went away: the report's work stops and nothing is answered (there is no one to answer). */
export class ReportAbortedError extends Error {
  constructor() {
    super('the client closed the connection');
  }
}

export function deadlineError(deadlineMs: number): UnavailableError {
  return new UnavailableError(
    `the report took longer than its deadline (${deadlineMs} ms); narrow the time range or the filters`,
  );
}

export interface BudgetBounds {
  /** The report deadline (REPORT_DEADLINE_MS), for the error message. */
  deadlineMs: number;
  /** Server-side bound on each query (maxTimeMS), further bounded by what is left of the deadline. */
  perQueryMs: number;
}

/**
 * One report's deadline, and the one way its database work is spent: `run` refuses to start a
 * query once the report must stop (deadline passed, client gone, another read failed), tracks
 * it until it settles (the key's slot waits for it) and races it against the stop, so a report
 * stops on time even while a server that ignores maxTimeMS (the stand-in) is still working.
 */
export class ReportBudget {
  private readonly stopped: Promise<never>;
  private stopReason?: { err: unknown };
  private timer?: NodeJS.Timeout;
  private onAbort?: () => void;
  private reject!: (err: unknown) => void;

  constructor(
    private readonly terms: BudgetTerms | undefined,
    private readonly bounds: BudgetBounds,
  ) {
    this.stopped = new Promise<never>((_, reject) => {
      this.reject = (err) => {
        this.stopReason ??= { err };
        reject(err);
      };
      if (!terms) return;
      this.timer = setTimeout(
        () => this.reject(deadlineError(bounds.deadlineMs)),
        Math.max(0, terms.deadline - Date.now()),
      );
      this.onAbort = () => this.reject(new ReportAbortedError());
      // an abort before the budget existed fires no event: the report is stopped from the start
      if (terms.signal?.aborted) this.onAbort();
      else terms.signal?.addEventListener('abort', this.onAbort, { once: true });
    });
    this.stopped.catch(() => undefined);
  }

  /** maxTimeMS for the next query: what is left of the deadline, at most the per-query bound. */
  remainingMs(): number {
    if (!this.terms) return this.bounds.perQueryMs;
    return Math.max(1, Math.min(this.bounds.perQueryMs, this.terms.deadline - Date.now()));
  }

  /** Starts `work` unless the report must stop, tracked until it settles, raced against the stop. */
  run<T>(work: () => Promise<T>): Promise<T> {
    try {
      this.throwIfStopped();
    } catch (err) {
      return Promise.reject(err);
    }
    return Promise.race([this.track(work()), this.stopped]);
  }

  /**
   * Streams a cursor into `fn`, each read spent through `run`: a departed client or a passed
   * deadline stops the read at once, and the cursor is closed on the server (in the background).
   */
  async stream<T>(cursor: AsyncIterable<T>, fn: (doc: T) => void): Promise<void> {
    const it = cursor[Symbol.asyncIterator]();
    let done = false;
    try {
      for (;;) {
        const next = await this.run(() => it.next());
        if (next.done) {
          done = true;
          return;
        }
        fn(next.value);
      }
    } finally {
      // closing a cursor is a command too: the report's slot waits for it
      if (!done && it.return) void this.track(it.return(undefined)).catch(() => undefined);
    }
  }

  /** One read failed (e.g. the group cap): the report's other reads stop too. */
  stop(err: unknown): void {
    this.reject(err);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onAbort) this.terms?.signal?.removeEventListener('abort', this.onAbort);
  }

  private throwIfStopped(): void {
    if (this.stopReason) throw this.stopReason.err;
    if (!this.terms) return;
    if (this.terms.signal?.aborted) throw new ReportAbortedError();
    if (Date.now() >= this.terms.deadline) throw deadlineError(this.bounds.deadlineMs);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    return this.terms?.work?.track(work) ?? work;
  }
}
