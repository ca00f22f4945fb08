import { InFlightWork } from './in-flight-work';
import { BudgetGate, ReportAbortedError, drain } from './report-budget';

/** A cursor that counts the reads it was asked for; each read stays pending until `finish`. */
function pendingCursor(): { cursor: AsyncIterable<number>; reads: () => number; finish: () => void; closed: () => boolean } {
  let reads = 0;
  let closed = false;
  let finish!: () => void;
  const pending = new Promise<IteratorResult<number>>((resolve) => (finish = () => resolve({ done: true, value: undefined })));
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

describe('BudgetGate and drain', () => {
  test('when the client left before the report started, then drain sends no read at all', async () => {
    const gone = new AbortController();
    gone.abort();
    const gate = new BudgetGate({ deadline: Date.now() + 60_000, signal: gone.signal, maxGroups: 10 }, 60_000);
    const c = pendingCursor();
    await expect(drain(c.cursor, gate, () => undefined)).rejects.toBeInstanceOf(ReportAbortedError);
    expect(c.reads()).toBe(0);
    gate.dispose();
  });

  test('when the client leaves during a read, then drain stops at once but the work settles only when the read and the close have', async () => {
    const gone = new AbortController();
    const work = new InFlightWork();
    const gate = new BudgetGate({ deadline: Date.now() + 60_000, signal: gone.signal, maxGroups: 10, work }, 60_000);
    const c = pendingCursor();
    const drained = drain(c.cursor, gate, () => undefined);
    gone.abort();
    await expect(drained).rejects.toBeInstanceOf(ReportAbortedError);
    let settled = false;
    const done = work.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve)); // every pending promise callback has run
    expect(settled).toBe(false);
    c.finish();
    await done;
    expect(c.closed()).toBe(true);
    gate.dispose();
  });
});
