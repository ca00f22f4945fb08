import type { Logger } from '@cm/platform';

/**
 * Runs `work` now and then every `intervalMs` after the previous run ended (never two at once).
 * A failed run is logged and the schedule goes on; stop() signals the run in progress (a long
 * run checks the signal between steps) and waits for it.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  private abort = new AbortController();

  constructor(
    private readonly name: string,
    private readonly work: (stop: AbortSignal) => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.abort = new AbortController();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.work(this.abort.signal)
        .catch((err: unknown) => {
          this.logger.warn(`${this.name} failed`, { error: String(err) });
        })
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.intervalMs);
        });
    }, delayMs).unref();
  }
}
