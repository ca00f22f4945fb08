import { UnavailableError } from '@cm/platform';
import type { ReportBudget } from './count-source';

/** The client went away: the report's work stops and nothing is answered (there is no one to answer). */
export class ReportAbortedError extends Error {
  constructor() {
    super('the client closed the connection');
  }
}

export function deadlineError(deadlineMs: number): UnavailableError {
  return new UnavailableError(`the report took longer than its deadline (${deadlineMs} ms); narrow the time range or the filters`);
}

/** Throws when the report must stop: the client left, or its deadline passed. */
export function checkBudget(budget: ReportBudget | undefined, deadlineMs: number): void {
  if (!budget) return;
  if (budget.signal?.aborted) throw new ReportAbortedError();
  if (Date.now() >= budget.deadline) throw deadlineError(deadlineMs);
}

/** maxTimeMS for the next query: what is left of the deadline, at most the per-query bound. */
export function remainingMs(budget: ReportBudget | undefined, perQueryMs: number): number {
  if (!budget) return perQueryMs;
  return Math.max(1, Math.min(perQueryMs, budget.deadline - Date.now()));
}

/**
 * Rejects when the report must stop (deadline passed, client gone): raced against every read, so a
 * report stops on time even while a server that ignores maxTimeMS (the stand-in) is still working.
 */
export class BudgetGate {
  readonly stopped: Promise<never>;
  private stopReason?: { err: unknown };
  private timer?: NodeJS.Timeout;
  private onAbort?: () => void;
  private reject!: (err: unknown) => void;

  constructor(private readonly budget: ReportBudget | undefined, deadlineMs: number) {
    this.stopped = new Promise<never>((_, reject) => {
      this.reject = (err) => {
        this.stopReason ??= { err };
        reject(err);
      };
      if (!budget) return;
      this.timer = setTimeout(() => this.reject(deadlineError(deadlineMs)), Math.max(0, budget.deadline - Date.now()));
      this.onAbort = () => this.reject(new ReportAbortedError());
      // an abort before the gate existed fires no event: the report is stopped from the start
      if (budget.signal?.aborted) this.onAbort();
      else budget.signal?.addEventListener('abort', this.onAbort, { once: true });
    });
    this.stopped.catch(() => undefined);
  }

  /** The read, tracked until it settles (the report's slot waits for it), raced against the stop. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([this.track(work), this.stopped]);
  }

  /** Before sending a query: once the report stopped, nothing new goes to the database. */
  throwIfStopped(): void {
    if (this.stopReason) throw this.stopReason.err;
  }

  /** One read failed (e.g. the group cap): the report's other reads stop too. */
  trip(err: unknown): void {
    this.reject(err);
  }

  /** Counts database work of the report that is not raced (e.g. closing a cursor). */
  track<T>(work: Promise<T>): Promise<T> {
    return this.budget?.work?.track(work) ?? work;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onAbort) this.budget?.signal?.removeEventListener('abort', this.onAbort);
  }
}

/**
 * Streams a cursor into `fn`, each read raced against the budget: a departed client or a passed
 * deadline stops the read at once, and the cursor is closed on the server (in the background).
 */
export async function drain<T>(cursor: AsyncIterable<T>, gate: BudgetGate, fn: (doc: T) => void): Promise<void> {
  const it = cursor[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      gate.throwIfStopped();
      const next = await gate.race(it.next());
      if (next.done) {
        done = true;
        return;
      }
      fn(next.value);
    }
  } finally {
    // closing a cursor is a command too: the report's slot waits for it
    if (!done && it.return) void gate.track(it.return(undefined)).catch(() => undefined);
  }
}
