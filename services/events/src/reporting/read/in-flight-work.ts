/**
 * The database work one report started and that has not settled yet (queries, cursor reads,
 * cursor closes). A report can stop early (client gone, deadline) while a query it sent is still
 * running on the server: its per-key slot is held until this is empty, so a client that hangs up
 * cannot run more than its share of queries.
 */
export class InFlightWork {
  private pending = 0;
  private waiters: Array<() => void> = [];
  private isClosed = false;

  /** `onSettled` runs once, when the work was closed and everything tracked settled. */
  constructor(private readonly onSettled?: () => void) {}

  /** Counts `work` as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending++;
    const done = () => {
      this.pending--;
      if (this.pending === 0) for (const wake of this.waiters.splice(0)) wake();
    };
    work.then(done, done);
    return work;
  }

  /** Resolves once nothing tracked is pending (at once when nothing is). */
  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The request is over (answered or its client gone): no new work may start; resolves when the old work settled. */
  close(): Promise<void> {
    const settled = this.settled();
    if (!this.isClosed) {
      this.isClosed = true;
      if (this.onSettled) void settled.then(this.onSettled);
    }
    return settled;
  }

  get closed(): boolean {
    return this.isClosed;
  }
}
