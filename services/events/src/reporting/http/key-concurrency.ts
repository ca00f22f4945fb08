/**
 * At most `perKey` reports of one API key at the same time in this process: one dashboard cannot
 * occupy every database connection. A slot is held until the answer was ready or the client left,
 * and the report's database work settled (the route releases it).
 */
export class KeyConcurrency {
  private readonly running = new Map<string, number>();

  constructor(private readonly perKey: number) {}

  /** A release function, or undefined when the key already runs `perKey` reports. */
  acquire(key: string): (() => void) | undefined {
    const n = this.running.get(key) ?? 0;
    if (n >= this.perKey) return undefined;
    this.running.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left <= 0) this.running.delete(key);
      else this.running.set(key, left);
    };
  }
}
