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
 * Streams a cursor into `fn`, checking the budget between documents: a departed client or a
 * passed deadline stops the read, and leaving the loop closes the cursor on the server.
 */
export async function drain<T>(cursor: AsyncIterable<T>, budget: ReportBudget | undefined, deadlineMs: number, fn: (doc: T) => void): Promise<void> {
  for await (const doc of cursor) {
    checkBudget(budget, deadlineMs);
    fn(doc);
  }
}
