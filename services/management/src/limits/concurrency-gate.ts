/**
 * At most `max` tasks at once; the others wait, first come first served. It bounds work that runs
 * on libuv's small thread pool (scrypt), so that DNS lookups and file reads sharing that pool are
 * never queued behind a burst of password hashes.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new Error('a concurrency gate admits at least one task');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // the slot passes straight to the next waiter, so a newcomer cannot overtake it
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
