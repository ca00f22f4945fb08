import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Db } from 'mongodb';
import type { Logger, NatsConnection, Registry } from '@cm/platform';
import type { EventsConfig } from '../config';
import { retentionMetrics } from '../operations-metrics';
import { createRetentionJob } from '../retention/retention-feature';
import type { RetentionJob } from '../retention/retention-job';
import { bucketInsertTimeoutMs, type RollupFeature } from '../rollups/rollup-feature';
import { streamFillMetrics } from '../stream/stream-metrics';
import type { Worker } from '../worker';
import { createBatchHandler, type BatchHandlerDeps } from './batch-handler';
import { BucketWriter } from './bucket-writer';
import { createConsumerMetrics } from './consumer-metrics';
import { DeadLetters } from './dead-letters';
import { EventConsumer, type EventConsumerDeps } from './event-consumer';

export type ConsumerConfig = BatchHandlerDeps['config'] &
  EventConsumerDeps['config'] &
  Pick<
    EventsConfig,
    | 'EVENTS_WRITE_CONCERN_W'
    | 'EVENTS_WRITE_CONCERN_J'
    | 'ROLLUP_ABANDON_MS'
    | 'EVENTS_DEAD_LETTER_SUBJECT'
    | 'PUBLISH_TIMEOUT_MS'
    | 'RETENTION_INTERVAL_MS'
  >;

export interface ConsumerFeature {
  /** The event consumer, then the scheduled retention passes: stopped in reverse, the consumer's batch in hand written last. */
  workers: Worker[];
  /** The process's retention job, scheduled here; the operator endpoint runs it on demand too. */
  retention: RetentionJob;
}

/**
 * Wires the consumer role: the bucket writer (with the rollups' write marks), dead letters, the
 * batch handler and the JetStream consumer, the stream fill metrics, and the retention job it
 * schedules (the writer forgets each bucket the job drops).
 */
export async function createConsumerFeature(deps: {
  nc: NatsConnection;
  db: Db;
  config: ConsumerConfig;
  logger: Logger;
  metrics: Registry;
  rollups?: Pick<RollupFeature, 'writeMarks' | 'retention'>;
}): Promise<ConsumerFeature> {
  const { nc, db, config, logger, metrics, rollups } = deps;
  const writeConcern = { w: config.EVENTS_WRITE_CONCERN_W, journal: config.EVENTS_WRITE_CONCERN_J };
  const writer = new BucketWriter(
    db,
    logger,
    writeConcern,
    rollups?.writeMarks,
    bucketInsertTimeoutMs(config.ROLLUP_ABANDON_MS),
  );
  const retention = createRetentionJob({
    db,
    config,
    logger,
    rollups: rollups?.retention,
    onDropped: (bucket) => writer.forget(bucket),
    onPass: retentionMetrics(metrics),
  });
  const handler = createBatchHandler({
    writer,
    deadLetters: new DeadLetters(nc, config.EVENTS_DEAD_LETTER_SUBJECT, config.PUBLISH_TIMEOUT_MS),
    config,
  });
  const consumer = new EventConsumer({
    js: jetstream(nc),
    handler,
    metrics: createConsumerMetrics(metrics),
    logger,
    config,
  });
  // no API check: the stream's state is read lazily, at scrape time
  streamFillMetrics(metrics, await jetstreamManager(nc, { checkAPI: false }), config.EVENTS_STREAM);
  return { workers: [consumer, retention], retention };
}
