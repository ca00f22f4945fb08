import type { ConsumerInfo, StreamInfo } from '@nats-io/jetstream';
import { consumerStatusView, deadLetterStatusView, jetStreamTime, streamStatusView } from './pipeline-view';

const streamInfo = (state: Partial<StreamInfo['state']>, config: Partial<StreamInfo['config']> = {}) =>
  ({
    config: {
      name: 'EVENTS',
      subjects: ['events.v1.>'],
      duplicate_window: 300e9,
      max_age: 72 * 3600e9,
      max_bytes: -1,
      num_replicas: 3,
      ...config,
    },
    created: '2026-01-01T00:00:00Z',
    state: {
      messages: 0,
      bytes: 0,
      first_seq: 0,
      first_ts: '0001-01-01T00:00:00Z',
      last_seq: 0,
      last_ts: '0001-01-01T00:00:00Z',
      consumer_count: 1,
      ...state,
    },
  }) as unknown as StreamInfo;

describe('pipeline view', () => {
  test('when JetStream reports a time with nanoseconds, then it becomes a UTC text; Go zero time or a number becomes null', () => {
    expect(jetStreamTime('2026-03-04T05:06:07.123456789Z')).toBe('2026-03-04 05:06:07');
    expect(jetStreamTime('0001-01-01T00:00:00Z')).toBeNull();
    expect(jetStreamTime(0)).toBeNull();
    expect(jetStreamTime(undefined)).toBeNull();
    expect(jetStreamTime('garbage')).toBeNull();
  });

  test('when the stream holds messages, then counts, sequences, times and settings are shown in seconds', () => {
    const view = streamStatusView(
      streamInfo({
        messages: 5,
        bytes: 1200,
        first_seq: 3,
        first_ts: '2026-03-04T05:06:07.5Z',
        last_seq: 7,
        last_ts: '2026-03-04T06:00:00Z',
      }),
    );
    expect(view).toEqual({
      name: 'EVENTS',
      subjects: ['events.v1.>'],
      messages: 5,
      bytes: 1200,
      first_seq: 3,
      first_ts: '2026-03-04 05:06:07',
      last_seq: 7,
      last_ts: '2026-03-04 06:00:00',
      consumer_count: 1,
      duplicate_window_seconds: 300,
      max_age_seconds: 259200,
      max_bytes: -1,
      replicas: 3,
    });
  });

  test('when the stream is empty after its messages aged out, then first_ts is null and last_seq is kept', () => {
    const view = streamStatusView(
      streamInfo({
        messages: 0,
        first_seq: 8,
        first_ts: '2026-03-04T06:00:00Z',
        last_seq: 7,
        last_ts: '2026-03-04T06:00:00Z',
      }),
    );
    expect(view).toMatchObject({ messages: 0, first_ts: null, last_seq: 7, last_ts: '2026-03-04 06:00:00' });
  });

  test('when the consumer is read, then lag, in-flight, redeliveries and the delivered and acked points are shown', () => {
    const info = {
      name: 'events-writer',
      num_pending: 42,
      num_ack_pending: 3,
      num_redelivered: 1,
      num_waiting: 2,
      delivered: { consumer_seq: 10, stream_seq: 12, last_active: '2026-03-04T06:00:01.999Z' },
      ack_floor: { consumer_seq: 7, stream_seq: 9 },
    } as unknown as ConsumerInfo;
    expect(consumerStatusView(info)).toEqual({
      name: 'events-writer',
      num_pending: 42,
      num_ack_pending: 3,
      num_redelivered: 1,
      num_waiting: 2,
      last_delivered: { stream_seq: 12, consumer_seq: 10, last_active: '2026-03-04 06:00:01' },
      last_acked: { stream_seq: 9, consumer_seq: 7, last_active: null },
    });
  });

  test('when the dead-letter stream is read, then its name, count, size and last time are shown', () => {
    const info = streamInfo({ messages: 2, bytes: 300, last_ts: '2026-03-04T06:00:00Z' }, { name: 'EVENTS_DLQ' });
    expect(deadLetterStatusView(info)).toEqual({
      name: 'EVENTS_DLQ',
      messages: 2,
      bytes: 300,
      last_ts: '2026-03-04 06:00:00',
    });
  });
});
