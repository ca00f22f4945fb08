import { loadEventsConfig } from '../config';
import { deadLetterStreamConfig, eventStreamConfig, writerConsumerConfig } from './stream-config';

const config = loadEventsConfig({});

describe('stream settings', () => {
  test('when defaults are used, then the events stream is file-backed, bounded, deduplicates for at least 2 minutes and refuses rather than evicts', () => {
    const s = eventStreamConfig(config);
    expect(s).toMatchObject({
      name: 'EVENTS',
      subjects: ['events.v1.>'],
      storage: 'file',
      retention: 'limits',
      discard: 'new',
      num_replicas: 1,
      max_bytes: 8 * 1024 ** 3,
      max_msgs: 20_000_000,
    });
    expect(s.max_msg_size).toBe(1024 * 1024);
    expect(s.duplicate_window).toBeGreaterThanOrEqual(120 * 1e9);
    expect(s.max_age).toBe(72 * 3600 * 1e9);
  });

  test('when the dead-letter stream is configured, then it captures exactly the dead-letter subject and keeps letters for 30 days', () => {
    expect(deadLetterStreamConfig(config)).toMatchObject({
      name: 'EVENTS_DLQ',
      subjects: ['events_dlq.v1'],
      storage: 'file',
      max_age: 720 * 3600 * 1e9,
      max_bytes: 1024 ** 3,
      discard: 'old',
    });
  });

  test('when the writer consumer is configured, then it is durable with explicit acks and unlimited deliveries', () => {
    expect(writerConsumerConfig(config)).toMatchObject({
      durable_name: 'events-writer',
      filter_subject: 'events.v1.>',
      ack_policy: 'explicit',
      ack_wait: 30 * 1e9,
      max_deliver: -1,
      max_ack_pending: 20000,
    });
  });

  test('when the dead-letter subject lies inside the events subjects, then the configuration is refused', () => {
    expect(() => loadEventsConfig({ EVENTS_DEAD_LETTER_SUBJECT: 'events.v1.dlq' })).toThrow(
      /EVENTS_DEAD_LETTER_SUBJECT/,
    );
  });

  test('when one publish attempt may wait longer than the whole publish, then the configuration is refused', () => {
    expect(() => loadEventsConfig({ PUBLISH_TIMEOUT_MS: '1000', PUBLISH_ATTEMPT_TIMEOUT_MS: '2000' })).toThrow(
      /PUBLISH_ATTEMPT_TIMEOUT_MS/,
    );
  });

  test('when a group-commit message could exceed what a stream message may hold, then the configuration is refused', () => {
    expect(() => loadEventsConfig({ INGEST_BATCH_MAX_BYTES: String(2 * 1024 * 1024) })).toThrow(
      /INGEST_BATCH_MAX_BYTES/,
    );
    expect(() => loadEventsConfig({ INGEST_BATCH_MAX_EVENTS: '1001' })).toThrow(/INGEST_BATCH_MAX_EVENTS/);
  });

  test('when max ack pending cannot hold three batches, then the configuration is refused', () => {
    expect(() => loadEventsConfig({ CONSUMER_BATCH_SIZE: '1000', CONSUMER_MAX_ACK_PENDING: '2000' })).toThrow(
      /CONSUMER_MAX_ACK_PENDING/,
    );
  });
});
