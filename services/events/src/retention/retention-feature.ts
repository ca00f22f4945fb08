import type { Db } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { EventsConfig } from '../config';
import { RetentionJob, type RetentionOptions } from './retention-job';

/**
 * The one retention job of a process with MongoDB, rollups included: the consumer role schedules
 * it (and hears what it dropped), the operator endpoint runs the same job on demand.
 */
export function createRetentionJob(deps: {
  db: Db;
  config: Pick<EventsConfig, 'BUCKET_PREFIX' | 'RETENTION_DAYS' | 'RETENTION_INTERVAL_MS'>;
  logger: Logger;
  rollups?: RetentionOptions['rollups'];
  onDropped?: RetentionOptions['onDropped'];
  onPass?: RetentionOptions['onPass'];
}): RetentionJob {
  const { config } = deps;
  return new RetentionJob(
    deps.db,
    {
      prefix: config.BUCKET_PREFIX,
      retentionDays: config.RETENTION_DAYS,
      intervalMs: config.RETENTION_INTERVAL_MS,
      onDropped: deps.onDropped,
      onPass: deps.onPass,
      rollups: deps.rollups,
    },
    deps.logger,
  );
}
