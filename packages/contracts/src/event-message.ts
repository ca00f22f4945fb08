import Joi from 'joi';

export type DeviceType = 'desktop' | 'tablet' | 'mobile';

/** What ingest publishes to JetStream and the consumer stores; version 1 of the contract. */
export interface EventMessage {
  v: 1;
  /** UUIDv7: time-ordered; the JetStream msgID and the MongoDB _id. */
  id: string;
  owner_id: string;
  name: string;
  /** "" when neither the url parameter nor a Referer was given. */
  url: string;
  content_id: string;
  device_type: DeviceType;
  /** Known bots are stored (for audit) but never counted in reports. */
  bot: boolean;
  /** Safe keys only (no `$` prefix, no dots); bounded count and length at ingest. */
  metadata: Record<string, string>;
  /** ISO 8601 UTC with milliseconds. */
  created: string;
}

/** Subject an event is published on: the stream binds `<prefix>.>`. */
export function eventSubject(prefix: string, ownerId: string): string {
  return `${prefix}.${ownerId}`;
}

export const EVENT_LIMITS = {
  nameMax: 128,
  urlMax: 2048,
  contentIdMax: 256,
  ownerIdMax: 32,
  metadataKeys: 20,
  metadataKeyMax: 64,
  metadataValueMax: 512,
} as const;

const eventMessageSchema = Joi.object<EventMessage>({
  v: Joi.number().valid(1).required(),
  id: Joi.string().guid().required(),
  owner_id: Joi.string().pattern(/^\d+$/).max(EVENT_LIMITS.ownerIdMax).required(),
  name: Joi.string().min(1).max(EVENT_LIMITS.nameMax).required(),
  url: Joi.string().allow('').max(EVENT_LIMITS.urlMax).required(),
  content_id: Joi.string().allow('').max(EVENT_LIMITS.contentIdMax).required(),
  device_type: Joi.string().valid('desktop', 'tablet', 'mobile').required(),
  bot: Joi.boolean().required(),
  metadata: Joi.object()
    .pattern(Joi.string().pattern(/^[^$.\0][^.\0]*$/).max(EVENT_LIMITS.metadataKeyMax), Joi.string().allow('').max(EVENT_LIMITS.metadataValueMax))
    .max(EVENT_LIMITS.metadataKeys)
    .required(),
  created: Joi.string().isoDate().required(),
});

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEventMessage(msg: EventMessage): Uint8Array {
  return encoder.encode(JSON.stringify(msg));
}

export type DecodeResult = { ok: true; value: EventMessage } | { ok: false; reason: string };

/** Never throws: an undecodable message is a value the consumer dead-letters. */
export function decodeEventMessage(data: Uint8Array): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const { value, error } = eventMessageSchema.validate(parsed, { abortEarly: true, convert: false });
  if (error) return { ok: false, reason: error.message };
  return { ok: true, value };
}
