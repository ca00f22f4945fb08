import { jetstreamManager, type ConsumerConfig, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import type { Logger, NatsConnection } from '@cm/platform';
import type { EventsConfig } from '../config';
import { deadLetterStreamConfig, eventStreamConfig, writerConsumerConfig } from './stream-config';

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; api_error?: { err_code?: number; code?: number }; message?: string };
  return e?.api_error?.code === 404 || e?.code === 404 || /not found/i.test(String(e?.message));
}

async function ensureStream(
  jsm: JetStreamManager,
  cfg: Partial<StreamConfig> & { name: string },
  logger: Logger,
): Promise<void> {
  try {
    await jsm.streams.info(cfg.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add(cfg);
    logger.info('stream created', { stream: cfg.name });
    return;
  }
  // settings may change between releases: apply them, never delete and recreate (data would go)
  const { name, ...update } = cfg;
  await jsm.streams.update(name, update);
}

/** Idempotent: creates or updates the events stream, the dead-letter stream and the writer consumer. */
export async function ensureStreams(
  nc: NatsConnection,
  config: EventsConfig,
  logger: Logger,
  withConsumer: boolean,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventStreamConfig(config), logger);
  await ensureStream(jsm, deadLetterStreamConfig(config), logger);
  if (!withConsumer) return;
  const consumer = writerConsumerConfig(config);
  try {
    await jsm.consumers.info(config.EVENTS_STREAM, config.CONSUMER_DURABLE);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(config.EVENTS_STREAM, consumer);
    logger.info('consumer created', { stream: config.EVENTS_STREAM, durable: config.CONSUMER_DURABLE });
    return;
  }
  const {
    durable_name: _d,
    filter_subject: _f,
    ack_policy: _a,
    deliver_policy: _p,
    ...updatable
  } = consumer as ConsumerConfig;
  await jsm.consumers.update(config.EVENTS_STREAM, config.CONSUMER_DURABLE, updatable);
}
