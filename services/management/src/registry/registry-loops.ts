import { prom, type Logger, type Registry } from '@cm/platform';
import { PeriodicTask } from './periodic-task';
import type { CorrectionKind } from './reconcile-plan';

export interface RegistryLoopsDeps {
  /** Names the registry in logs ("owner registry"). */
  what: string;
  /** Publishes what is still pending. */
  relay(): Promise<unknown>;
  /** One reconciliation pass. */
  reconcile(stop: AbortSignal): Promise<unknown>;
  /** Waits for announcements still running. */
  settle(): Promise<void>;
  relayIntervalMs: number;
  reconcileIntervalMs: number;
  logger: Logger;
}

/** A registry's background work: the relay and the reconciliation (its first pass at once). */
export function registryLoops(deps: RegistryLoopsDeps): { start(): void; stop(): Promise<void> } {
  const relay = new PeriodicTask(
    `${deps.what} relay`,
    async () => void (await deps.relay()),
    deps.relayIntervalMs,
    deps.logger,
  );
  const reconciliation = new PeriodicTask(
    `${deps.what} reconciliation`,
    async (stop) => void (await deps.reconcile(stop)),
    deps.reconcileIntervalMs,
    deps.logger,
  );
  return {
    start() {
      relay.start();
      reconciliation.start();
    },
    async stop() {
      await Promise.all([relay.stop(), reconciliation.stop()]);
      await deps.settle();
    },
  };
}

/** A registry's two series: documents still pending (a gauge read at scrape time) and reconciliation's corrections by kind. */
export function registryMetrics(
  metrics: Registry,
  series: { pending: { name: string; help: string }; corrections: { name: string; help: string } },
  pendingCount: () => Promise<number>,
): (kind: CorrectionKind) => void {
  new prom.Gauge({
    ...series.pending,
    registers: [metrics],
    async collect() {
      this.set(await pendingCount());
    },
  });
  const corrections = new prom.Counter({ ...series.corrections, labelNames: ['kind'], registers: [metrics] });
  return (kind) => corrections.inc({ kind });
}
