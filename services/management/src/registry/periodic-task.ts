import type { Logger } from '@cm/platform';

/**
 * Runs `work` now and then every `intervalMs` after the previous run ended (never two at once).
 * A failed run is logged and the schedule goes on; stop() waits for the run in progress.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.work()
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
