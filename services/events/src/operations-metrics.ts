import { prom, type Registry } from '@cm/platform';
import type { OwnerLookup } from './registry/owner-registry-watcher';

/** Owner registry state of an ingest process: size, and whether its replay finished (else the pixel answers 503). */
export function watchRegistryMetrics(registry: Registry, owners: OwnerLookup & { size: number }): void {
  new prom.Gauge({
    name: 'events_owner_registry_owners',
    help: 'Owner ids known to this ingest process (from the owner registry bucket)',
    registers: [registry],
    collect() {
      this.set(owners.size);
    },
  });
  new prom.Gauge({
    name: 'events_owner_registry_ready',
    help: '1 once the owner registry replay finished; 0 means the pixel answers 503',
    registers: [registry],
    collect() {
      this.set(owners.isReady() ? 1 : 0);
    },
  });
}

/** Retention passes: when the last one succeeded and how many buckets they dropped. */
export function retentionMetrics(registry: Registry): (dropped: string[]) => void {
  const lastRun = new prom.Gauge({
    name: 'events_retention_last_success_timestamp_seconds',
    help: 'Unix time of the last successful retention pass (alert when it is older than a few intervals)',
    registers: [registry],
  });
  const dropped = new prom.Counter({
    name: 'events_retention_dropped_buckets_total',
    help: 'Day buckets dropped by retention',
    registers: [registry],
  });
  return (names) => {
    lastRun.setToCurrentTime();
    dropped.inc(names.length);
  };
}
