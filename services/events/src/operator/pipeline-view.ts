import type { ConsumerInfo, SequenceInfo, StreamInfo } from '@nats-io/jetstream';
import { formatUtcDateTime } from '@cm/platform';

/** The events stream as `GET /admin/v1/pipeline` shows it. Timestamps are `YYYY-mm-dd HH:MM:SS` UTC, null when none. */
export interface StreamStatusView {
  name: string;
  subjects: string[];
  messages: number;
  bytes: number;
  first_seq: number;
  first_ts: string | null;
  last_seq: number;
  last_ts: string | null;
  consumer_count: number;
  duplicate_window_seconds: number;
  max_age_seconds: number;
  /** -1: unbounded. */
  max_bytes: number;
  replicas: number;
}

interface DeliveryPointView {
  stream_seq: number;
  consumer_seq: number;
  last_active: string | null;
}

/** The durable writer consumer; num_pending is its lag (stored in the stream, not yet delivered). */
export interface ConsumerStatusView {
  name: string;
  num_pending: number;
  num_ack_pending: number;
  num_redelivered: number;
  num_waiting: number;
  last_delivered: DeliveryPointView;
  /** The ack floor: every message up to stream_seq is acknowledged. */
  last_acked: DeliveryPointView;
}

export interface DeadLetterStatusView {
  name: string;
  messages: number;
  bytes: number;
  last_ts: string | null;
}

export interface PipelineView {
  stream: StreamStatusView;
  /** null when the durable consumer does not exist (no consumer process has started yet). */
  consumer: ConsumerStatusView | null;
  /** null when the dead-letter stream does not exist. */
  dead_letters: DeadLetterStatusView | null;
}

const NANOS_PER_SECOND = 1e9;

/**
 * JetStream reports an empty stream's first/last times as Go's zero time (year 1), and types
 * `last_active` as nanos while servers send an RFC 3339 string: both become null or a UTC text.
 */
export function jetStreamTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() <= 1) return null;
  return formatUtcDateTime(d);
}

export function streamStatusView(info: StreamInfo): StreamStatusView {
  const { config, state } = info;
  return {
    name: config.name,
    subjects: config.subjects ?? [],
    messages: state.messages,
    bytes: state.bytes,
    first_seq: state.first_seq,
    first_ts: state.messages > 0 ? jetStreamTime(state.first_ts) : null,
    last_seq: state.last_seq,
    last_ts: jetStreamTime(state.last_ts),
    consumer_count: state.consumer_count,
    duplicate_window_seconds: Math.round((config.duplicate_window ?? 0) / NANOS_PER_SECOND),
    max_age_seconds: Math.round((config.max_age ?? 0) / NANOS_PER_SECOND),
    max_bytes: config.max_bytes,
    replicas: config.num_replicas,
  };
}

function deliveryPoint(s: SequenceInfo | undefined): DeliveryPointView {
  return {
    stream_seq: s?.stream_seq ?? 0,
    consumer_seq: s?.consumer_seq ?? 0,
    last_active: jetStreamTime(s?.last_active),
  };
}

export function consumerStatusView(info: ConsumerInfo): ConsumerStatusView {
  return {
    name: info.name,
    num_pending: info.num_pending,
    num_ack_pending: info.num_ack_pending,
    num_redelivered: info.num_redelivered,
    num_waiting: info.num_waiting,
    last_delivered: deliveryPoint(info.delivered),
    last_acked: deliveryPoint(info.ack_floor),
  };
}

export function deadLetterStatusView(info: StreamInfo): DeadLetterStatusView {
  return {
    name: info.config.name,
    messages: info.state.messages,
    bytes: info.state.bytes,
    last_ts: jetStreamTime(info.state.last_ts),
  };
}
