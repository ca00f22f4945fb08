import { prom, type Registry } from '@cm/platform';
import type { BuildPass } from './rollup-builder';
import { LEVEL_NAMES } from './rollup-units';

export interface RollupMetrics {
  observe(pass: BuildPass, dirtyHours: number): void;
  failed(): void;
}

/** Builder progress: how far behind it is, how much is dirty, how much it (re)built. */
export function createRollupMetrics(registry: Registry): RollupMetrics {
  const lag = new prom.Gauge({
    name: 'events_rollup_lag_seconds',
    help: 'Seconds since the oldest dirty hour became ready to build (0 when rollups caught up)',
    registers: [registry],
  });
  const dirty = new prom.Gauge({
    name: 'events_rollup_dirty_hours',
    help: 'Hours written to since their rollup was built (answered from raw events until rebuilt)',
    registers: [registry],
  });
  const rebuilds = new prom.Counter({
    name: 'events_rollup_rebuilds_total',
    help: 'Rollup units built or rebuilt, by level (1h, 4h, 1d, 2d .. 32d)',
    labelNames: ['level'],
    registers: [registry],
  });
  const failures = new prom.Counter({
    name: 'events_rollup_pass_failures_total',
    help: 'Builder passes that failed (retried on the next interval)',
    registers: [registry],
  });
  const unitFailures = new prom.Counter({
    name: 'events_rollup_unit_failures_total',
    help: 'Rollup unit builds that failed and were given up (the unit is retried later, with a growing wait; other units go on), by level',
    labelNames: ['level'],
    registers: [registry],
  });
  const swept = new prom.Counter({
    name: 'events_rollup_swept_generations_total',
    help: 'Cell generations of builds that died before publishing, dropped by the sweep',
    registers: [registry],
  });
  const orphans = new prom.Counter({
    name: 'events_rollup_orphan_generations_total',
    help: 'Cell generations no mark pointed at (left by a clean-up whose outcome was unknown), dropped by the orphan sweep',
    registers: [registry],
  });
  const overCap = new prom.Counter({
    name: 'events_rollup_owner_over_cap_total',
    help: "Units in which an owner's family passed ROLLUP_MAX_CELLS_PER_OWNER cells (that owner's reports of that family read the span from smaller units or raw events), by level and family",
    labelNames: ['level', 'family'],
    registers: [registry],
  });
  return {
    observe(pass, dirtyHours) {
      for (const o of pass.overCap) overCap.inc({ level: LEVEL_NAMES[o.level] ?? String(o.level), family: o.family });
      lag.set(pass.lagSeconds);
      dirty.set(dirtyHours);
      pass.built.forEach((n, level) => n > 0 && rebuilds.inc({ level: LEVEL_NAMES[level] ?? String(level) }, n));
      if (pass.swept > 0) swept.inc(pass.swept);
      if (pass.orphans > 0) orphans.inc(pass.orphans);
      for (const f of pass.failed) unitFailures.inc({ level: LEVEL_NAMES[f.level] ?? String(f.level) });
    },
    failed: () => failures.inc(),
  };
}

/** Units found pointing at missing cells and reset (BrokenUnits), by level and by who found them. */
export function createBrokenUnitsMetric(registry: Registry): (level: string, foundBy: string) => void {
  const broken = new prom.Counter({
    name: 'events_rollup_broken_units_total',
    help: 'Rollup units whose mark pointed at missing cells, reset to be rebuilt (their spans read from smaller units or raw events meanwhile), by level and by who found them (report, builder)',
    labelNames: ['level', 'found_by'],
    registers: [registry],
  });
  return (level, foundBy) => broken.inc({ level, found_by: foundBy });
}
