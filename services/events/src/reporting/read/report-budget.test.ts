import { InFlightWork } from './in-flight-work';
import { ReportAbortedError, ReportBudget } from './report-budget';

const BOUNDS = { deadlineMs: 60_000, perQueryMs: 60_000 };

/** A cursor that counts the reads it was asked for; each read stays pending until `finish`. */
function pendingCursor(): {
  cursor: AsyncIterable<number>;
  reads: () => number;
  finish: () => void;
  closed: () => boolean;
} {
  let reads = 0;
  let closed = false;
  let finish!: () => void;
  const pending = new Promise<IteratorResult<number>>(
    (resolve) => (finish = () => resolve({ done: true, value: undefined })),
  );
  const it: AsyncIterator<number> = {
    next: () => {
      reads++;
      return pending;
    },
    return: async () => {
      await pending;
      closed = true;
      return { done: true, value: undefined };
    },
  };
  return { cursor: { [Symbol.asyncIterator]: () => it }, reads: () => reads, finish, closed: () => closed };
}

describe('ReportBudget.stream', () => {
  test('when the client left before the report started, then stream sends no read at all', async () => {
    const gone = new AbortController();
    gone.abort();
    const budget = new ReportBudget({ deadline: Date.now() + 60_000, signal: gone.signal }, BOUNDS);
    const c = pendingCursor();
    await expect(budget.stream(c.cursor, () => undefined)).rejects.toBeInstanceOf(ReportAbortedError);
    expect(c.reads()).toBe(0);
    budget.dispose();
  });

  test('when the client leaves during a read, then stream stops at once but the work settles only when the read and the close have', async () => {
    const gone = new AbortController();
    const work = new InFlightWork();
    const budget = new ReportBudget({ deadline: Date.now() + 60_000, signal: gone.signal, work }, BOUNDS);
    const c = pendingCursor();
    const drained = budget.stream(c.cursor, () => undefined);
    gone.abort();
    await expect(drained).rejects.toBeInstanceOf(ReportAbortedError);
    let settled = false;
    const done = work.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve)); // every pending promise callback has run
    expect(settled).toBe(false);
    c.finish();
    await done;
    expect(c.closed()).toBe(true);
    budget.dispose();
  });
});
