import { decodeEventMessage, isPlainValidEventRecord, validateEventRecord, type EventRecord } from './event-message';

/**
 * Version 2 of the ingest -> consumer contract: several events in one JetStream message (group
 * commit). Ingest gathers the events that arrive while its publish window is full and publishes
 * them together, so the broker's per-message costs (store, ack, delivery, consumer ack) are paid
 * once per batch instead of once per event.
 *
 * - `id` is unique per message and is its JetStream msgID: a retried publish of the same message
 *   is stored once within the stream's duplicate window.
 * - every event keeps its own UUIDv7 `id`, which stays the MongoDB `_id`: a redelivered batch
 *   never counts an event twice, whatever part of it was written before.
 * - each event is validated on its own: one invalid event is dead-lettered alone.
 *
 * @public the wire format, kept as a type for readers and other producers
 */
export interface EventBatchMessage {
  v: 2;
  id: string;
  events: EventRecord[];
}

export const EVENT_BATCH_LIMITS = {
  /** Events one message may carry (ingest's configured bound must not exceed it). */
  maxEvents: 1000,
  /** Bytes one message may have; the stream's max_msg_size is set to this. */
  maxBytes: 1024 * 1024,
  idMax: 64,
} as const;

/** Batches are published on one subject under the stream's prefix (owner ids are digits, so it never collides with a v1 subject). */
export function eventBatchSubject(prefix: string): string {
  return `${prefix}.batch`;
}

/** One event as JSON: encoded once when the event is recorded, so building a batch is a concatenation. */
export function encodeEventRecord(event: EventRecord): string {
  return JSON.stringify(event);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEAD = '{"v":2,"id":';

/** The v2 message for `id` and events already encoded with encodeEventRecord. */
export function encodeEventBatch(id: string, encodedEvents: readonly string[]): Uint8Array {
  return encoder.encode(`${HEAD}${JSON.stringify(id)},"events":[${encodedEvents.join(',')}]}`);
}

/** The bytes encodeEventBatch adds around the events of a batch with this id (for byte budgets). */
export function eventBatchOverhead(id: string): number {
  return HEAD.length + JSON.stringify(id).length + ',"events":[]}'.length;
}

/** One event of a decoded message: valid, or refused with Joi's reason and the item as it came. */
type DecodedEvent = { ok: true; value: EventRecord } | { ok: false; reason: string; raw: unknown };

/**
 * A message as the consumer reads it. `ok: false` means the message as a whole cannot be read
 * (not JSON, no known version, a malformed batch envelope): it is dead-lettered whole. A v1
 * message that fails validation is refused whole too, exactly as before v2 existed.
 */
export type DecodedPayload = { ok: true; version: 1 | 2; events: DecodedEvent[] } | { ok: false; reason: string };

/** Never throws. Reads v1 single events and v2 batches. */
export function decodeEventPayload(data: Uint8Array): DecodedPayload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const version = typeof parsed === 'object' && parsed !== null ? (parsed as { v?: unknown }).v : undefined;
  if (version === 2) return decodeBatch(parsed as Record<string, unknown>);
  const single = decodeEventMessage(data, parsed);
  if (!single.ok) return single;
  const { v: _v, ...event } = single.value;
  return { ok: true, version: 1, events: [{ ok: true, value: event }] };
}

function decodeBatch(m: Record<string, unknown>): DecodedPayload {
  const keys = Object.keys(m);
  if (keys.length !== 3 || !('id' in m) || !('events' in m))
    return { ok: false, reason: 'a v2 message has exactly the fields v, id and events' };
  if (typeof m.id !== 'string' || m.id.length === 0 || m.id.length > EVENT_BATCH_LIMITS.idMax)
    return { ok: false, reason: `"id" must be a string of 1..${EVENT_BATCH_LIMITS.idMax} characters` };
  const events = m.events;
  if (!Array.isArray(events) || events.length === 0 || events.length > EVENT_BATCH_LIMITS.maxEvents) {
    return { ok: false, reason: `"events" must be an array of 1..${EVENT_BATCH_LIMITS.maxEvents} events` };
  }
  return { ok: true, version: 2, events: events.map(decodeEvent) };
}

function decodeEvent(item: unknown): DecodedEvent {
  if (isPlainValidEventRecord(item)) return { ok: true, value: item };
  const verdict = validateEventRecord(item);
  return verdict.ok ? verdict : { ok: false, reason: verdict.reason, raw: item };
}
