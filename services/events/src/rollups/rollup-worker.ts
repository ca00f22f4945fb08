import type { Logger } from '@cm/platform';
import type { RollupMarks } from './rollup-marks';
import type { RollupMetrics } from './rollup-metrics';
import type { PassRunner } from './rollup-threads';
import { LEVEL_NAMES } from './rollup-units';

export interface RollupWorkerOptions {
  /** Pause between passes once caught up. */
  intervalMs: number;
}

/** The `rollup` role: builder passes back to back while there is work, every intervalMs when idle. */
export class RollupWorker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = true;
  /** Owners and families already logged as over the cap (once per process: the metric counts every unit). */
  private readonly overLogged = new Set<string>();

  constructor(
    private readonly builder: PassRunner,
    private readonly marks: RollupMarks,
    private readonly metrics: RollupMetrics,
    private readonly opts: RollupWorkerOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    const tick = () => {
      this.running = this.pass()
        .then((busy) => this.schedule(tick, busy ? 0 : this.opts.intervalMs))
        .catch((err: unknown) => {
          this.metrics.failed();
          this.logger.warn('rollup pass failed', { error: String(err) });
          this.schedule(tick, this.opts.intervalMs);
        });
    };
    this.schedule(tick, 0);
  }

  /** One pass; true when it built something (so another may follow at once). */
  async pass(): Promise<boolean> {
    const pass = await this.builder.runOnce();
    const dirtyHours = await this.marks.countDirtyHours();
    this.metrics.observe(pass, dirtyHours);
    // once per unit until it builds again: a unit that keeps failing is retried, not logged again
    for (const f of pass.failed) {
      if (f.first)
        this.logger.warn(
          'rollup unit build failed; its spans are answered from smaller units or raw events until it builds',
          { unit: f.unit, unit_size: LEVEL_NAMES[f.level], error: f.error },
        );
    }
    for (const o of pass.overCap) {
      const key = JSON.stringify([o.owner, o.family]);
      if (this.overLogged.has(key)) continue;
      this.overLogged.add(key);
      this.logger.warn(
        "an owner's rollup family passed ROLLUP_MAX_CELLS_PER_OWNER cells in a unit; its reports of that family read raw events there",
        { owner_id: o.owner, family: o.family, unit_size: LEVEL_NAMES[o.level] },
      );
    }
    const built = pass.built.reduce((a, b) => a + b, 0);
    if (built > 0)
      this.logger.debug('rollup pass', { built: pass.built, waiting: pass.waiting, lag_seconds: pass.lagSeconds });
    return built > 0;
  }

  private schedule(tick: () => void, delayMs: number): void {
    if (!this.stopped) this.timer = setTimeout(tick, delayMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await this.builder.close?.();
  }
}
