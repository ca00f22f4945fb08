import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { EVENT_BATCH_LIMITS } from '@cm/contracts';
import type { EventsConfig } from '../config';
import { HOUR_MS } from '../storage/time-units';

type StreamSettings = Pick<
  EventsConfig,
  | 'EVENTS_STREAM'
  | 'EVENTS_SUBJECT_PREFIX'
  | 'EVENTS_DEAD_LETTER_SUBJECT'
  | 'EVENTS_STREAM_REPLICAS'
  | 'EVENTS_STREAM_MAX_AGE_HOURS'
  | 'EVENTS_STREAM_MAX_BYTES'
  | 'EVENTS_STREAM_MAX_MSGS'
  | 'EVENTS_DEDUPE_WINDOW_SECONDS'
  | 'EVENTS_DLQ_MAX_AGE_HOURS'
  | 'EVENTS_DLQ_MAX_BYTES'
>;

type ConsumerSettings = Pick<
  EventsConfig,
  'CONSUMER_DURABLE' | 'CONSUMER_ACK_WAIT_MS' | 'CONSUMER_MAX_ACK_PENDING' | 'EVENTS_SUBJECT_PREFIX'
>;

/** A group-commit message is bounded by INGEST_BATCH_MAX_BYTES (at most 512 KB); this refuses anything absurd. */
const MAX_EVENT_MESSAGE_BYTES = EVENT_BATCH_LIMITS.maxBytes;

/**
 * The events stream: a durable buffer between ingest and the consumer.
 * - file storage, replicas from config (3 in a cluster), limits retention so the last
 *   max_age of events can be replayed by a new or repaired consumer;
 * - discard "new": when max_bytes or max_msgs is reached publishes fail (the pixel answers 503)
 *   instead of the stream silently evicting events that may not have been written to MongoDB yet;
 *   both are bounded by default so a flood cannot fill the JetStream storage the owner registry
 *   bucket lives in (see docs/operations.md for sizing);
 * - duplicate_window >= 2 min: a publish retried with the same msgID (the batch id) is stored once.
 */
export function eventStreamConfig(s: StreamSettings): Partial<StreamConfig> & { name: string } {
  return {
    name: s.EVENTS_STREAM,
    subjects: [`${s.EVENTS_SUBJECT_PREFIX}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    max_age: nanos(s.EVENTS_STREAM_MAX_AGE_HOURS * HOUR_MS),
    max_bytes: s.EVENTS_STREAM_MAX_BYTES,
    max_msgs: s.EVENTS_STREAM_MAX_MSGS,
    max_msg_size: MAX_EVENT_MESSAGE_BYTES,
    duplicate_window: nanos(s.EVENTS_DEDUPE_WINDOW_SECONDS * 1000),
    num_replicas: s.EVENTS_STREAM_REPLICAS,
  };
}

/** Dead letters are kept for inspection and replay; old ones make room for new ones. */
export function deadLetterStreamConfig(s: StreamSettings): Partial<StreamConfig> & { name: string } {
  return {
    name: `${s.EVENTS_STREAM}_DLQ`,
    subjects: [s.EVENTS_DEAD_LETTER_SUBJECT],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(s.EVENTS_DLQ_MAX_AGE_HOURS * HOUR_MS),
    max_bytes: s.EVENTS_DLQ_MAX_BYTES,
    duplicate_window: nanos(s.EVENTS_DEDUPE_WINDOW_SECONDS * 1000),
    num_replicas: s.EVENTS_STREAM_REPLICAS,
  };
}

/**
 * The durable pull consumer that writes to MongoDB. Explicit acks, sent only after the write.
 * max_deliver is unlimited: a MongoDB outage must never turn into dropped events; poison
 * messages are terminated by the handler (dead letter) instead. The retry backoff lives in the
 * handler (nak with an exponential delay per delivery, see retry-delay.ts) because the server
 * refuses a `backoff` list together with unlimited deliveries. A consumer that dies with a
 * batch in hand gets it redelivered after ack_wait.
 */
export function writerConsumerConfig(s: ConsumerSettings): Partial<ConsumerConfig> {
  return {
    durable_name: s.CONSUMER_DURABLE,
    filter_subject: `${s.EVENTS_SUBJECT_PREFIX}.>`,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(s.CONSUMER_ACK_WAIT_MS),
    max_deliver: -1,
    max_ack_pending: s.CONSUMER_MAX_ACK_PENDING,
  };
}
