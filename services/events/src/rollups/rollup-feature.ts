import type { Db } from 'mongodb';
import type { Logger, Registry } from '@cm/platform';
import type { EventsConfig } from '../config';
import { BrokenUnits } from './broken-units';
import { CellStore } from './cell-store';
import { HeldMarks } from './held-marks';
import { RollupBuilder } from './rollup-builder';
import { RollupMarks } from './rollup-marks';
import { createBrokenUnitsMetric, createRollupMetrics } from './rollup-metrics';
import { RollupRebuild } from './rollup-rebuild';
import { RollupRetention } from './rollup-retention';
import { RollupThreads, type PassRunner } from './rollup-threads';
import { RollupWorker } from './rollup-worker';

export type RollupConfig = Pick<
  EventsConfig,
  | 'BUCKET_PREFIX'
  | 'RETENTION_DAYS'
  | 'REPORT_MAX_RANGE_DAYS'
  | 'ROLLUP_INTERVAL_MS'
  | 'ROLLUP_GRACE_MS'
  | 'ROLLUP_ABANDON_MS'
  | 'ROLLUP_BATCH_UNITS'
  | 'ROLLUP_RETENTION_DAYS'
  | 'ROLLUP_MAX_CELLS_PER_OWNER'
  | 'ROLLUP_THREADS'
  | 'ROLLUP_THREAD_HEAP_MB'
  | 'ROLLUP_ZONES'
  | 'MONGO_URL'
  | 'MONGO_DB'
  | 'LOG_LEVEL'
>;

export interface RollupFeature {
  /** The consumer's write marks (BucketWriter), held open per unit while writes keep coming; drained on stop. */
  writeMarks: HeldMarks;
  /** For the retention job: rollups kept ROLLUP_RETENTION_DAYS, dropped before their raw days. */
  retention: { retentionDays: number; dropBefore(cutoff: number): Promise<number> };
  /** The `rollup` role's background builder (only when asked for). */
  worker?: RollupWorker;
  /** The operator's status and rebuild commands. */
  rebuild: RollupRebuild;
  /** Where a report or the builder resets a unit found pointing at missing cells, or contains one with damaged pages (logged, counted). */
  broken: BrokenUnits;
}

/** Wires rollups: marks for the writer, retention, the operator commands, and (for the rollup role) the builder loop. */
export async function createRollupFeature(deps: {
  db: Db;
  config: RollupConfig;
  metrics: Registry;
  logger: Logger;
  builder: boolean;
}): Promise<RollupFeature> {
  const { db, config } = deps;
  // every writer marks the configured zones' days (the builder builds whatever is marked)
  const marks = new RollupMarks(db, undefined, config.ROLLUP_ZONES);
  const cells = new CellStore(db);
  await marks.init();
  const retention = new RollupRetention(marks, cells, config.ROLLUP_ZONES);
  // a damaged unit whose raw events are gone is never reset (that would lose every owner's cells)
  const brokenMetric = createBrokenUnitsMetric(deps.metrics);
  const broken = new BrokenUnits(marks.collection, cells, deps.logger, brokenMetric, {
    rawRetentionDays: config.RETENTION_DAYS,
  });
  const feature: RollupFeature = {
    broken,
    writeMarks: new HeldMarks(marks, {
      holdMs: heldMarksHoldMs(config.ROLLUP_ABANDON_MS),
      lingerMs: 1000,
      zones: config.ROLLUP_ZONES,
      onError: (err) => deps.logger.warn('rollup finished mark failed', { error: String(err) }),
    }),
    retention: {
      retentionDays: config.ROLLUP_RETENTION_DAYS || config.RETENTION_DAYS,
      dropBefore: (cutoff) => retention.dropBefore(cutoff),
    },
    rebuild: new RollupRebuild(marks, {
      rawRetentionDays: config.RETENTION_DAYS,
      maxDays: config.REPORT_MAX_RANGE_DAYS,
    }),
  };
  if (deps.builder) {
    const options = {
      prefix: config.BUCKET_PREFIX,
      graceMs: config.ROLLUP_GRACE_MS,
      abandonMs: config.ROLLUP_ABANDON_MS,
      batchUnits: config.ROLLUP_BATCH_UNITS,
      rawRetentionDays: config.RETENTION_DAYS,
      maxCellsPerOwner: config.ROLLUP_MAX_CELLS_PER_OWNER,
    };
    const builder: PassRunner =
      config.ROLLUP_THREADS > 1
        ? new RollupThreads({
            count: config.ROLLUP_THREADS,
            data: {
              mongoUrl: config.MONGO_URL,
              mongoDb: config.MONGO_DB,
              logLevel: config.LOG_LEVEL,
              builder: options,
              brokenRawRetentionDays: config.RETENTION_DAYS,
            },
            onBroken: brokenMetric,
            maxOldGenerationSizeMb: config.ROLLUP_THREAD_HEAP_MB || undefined,
          })
        : new RollupBuilder(db, marks, cells, { ...options, broken, logger: deps.logger });
    feature.worker = new RollupWorker(
      builder,
      marks,
      createRollupMetrics(deps.metrics),
      { intervalMs: config.ROLLUP_INTERVAL_MS },
      deps.logger,
    );
  }
  return feature;
}

/**
 * A hold is renewed, and a write in flight refreshes its marks, long before the builder could take
 * its writer for dead (ROLLUP_ABANDON_MS): the refresh interval.
 */
export function heldMarksHoldMs(abandonMs: number): number {
  return Math.min(10_000, Math.floor(abandonMs / 4));
}

/**
 * The server-side bound of one bucket insert: half the refresh interval, so an insert whose
 * outcome the consumer could not learn has stopped on the server well before its marks, no
 * longer refreshed, reach ROLLUP_ABANDON_MS (bound < refresh interval < abandon time).
 */
export function bucketInsertTimeoutMs(abandonMs: number): number {
  return Math.floor(heldMarksHoldMs(abandonMs) / 2);
}
