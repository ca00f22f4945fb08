import Joi from 'joi';
import { countrySchema, isCountryCode } from './country';
import { attributionSchemaFields, plainAttributionCount, type Attribution } from './attribution';
import { isPlainValidMeasures, MEASURE_MAX, measuresSchema, type Measures } from './measures';

export type DeviceType = 'desktop' | 'tablet' | 'mobile';

/**
 * One event as ingest records it: the content of a v1 message and of each item of a v2 batch.
 * Attribution (attribution.ts: `utm_source`..`utm_term`, `referrer`) is optional, each field
 * absent when empty and on events from before it existed.
 */
export interface EventRecord extends Attribution {
  /** UUIDv7: time-ordered; the MongoDB _id (and the JetStream msgID of a v1 message). */
  id: string;
  owner_id: string;
  name: string;
  /** The canonical page URL (page-url.ts); "" when neither the url parameter nor a usable Referer was given. */
  url: string;
  content_id: string;
  device_type: DeviceType;
  /** Known bots are stored (for audit) but never counted in reports. */
  bot: boolean;
  /** Safe keys only (no `$` prefix, no dots); bounded count and length at ingest. */
  metadata: Record<string, string>;
  /** ISO 8601 UTC with milliseconds. */
  created: string;
  /**
   * Pseudonymous visitor: the first 52 bits of an HMAC-SHA256 (of the publisher's visitor id, or of
   * the client under a salt that is deleted when its period ends), an integer in [0, 2^52). Every
   * event ingest publishes has it; optional because messages published before it existed may
   * still be in the stream.
   */
  visitor?: number;
  /** The numeric values the hit carried (see measures.ts); absent when it carried none, and on events from before they existed. */
  measures?: Measures;
  /**
   * The visitor's country (ISO 3166-1 alpha-2, see country.ts), looked up at ingest from the client
   * address, which itself is never part of the event. Absent when unknown: a private, loopback or
   * link-local address, one the country database does not know, no database, and events from
   * before countries existed.
   */
  country?: string;
}

/** Version 1 of the contract: one event per JetStream message (still read, so a rolling upgrade loses nothing). */
export interface EventMessage extends EventRecord {
  v: 1;
}

export const EVENT_LIMITS = {
  nameMax: 128,
  urlMax: 2048,
  contentIdMax: 256,
  ownerIdMax: 32,
  metadataKeys: 20,
  metadataKeyMax: 64,
  metadataValueMax: 512,
  /** Visitor hashes are below this bound (52 bits: exact as a JS number and a BSON double). */
  visitorBound: 2 ** 52,
  /** The pixel's `vid` (a publisher's visitor id): never stored, only its keyed hash. */
  vidMax: 128,
  /** The largest value of each measure; every measure is an integer from 0. */
  measureMax: MEASURE_MAX,
} as const;

const eventRecordFields = {
  id: Joi.string().guid().required(),
  owner_id: Joi.string().pattern(/^\d+$/).max(EVENT_LIMITS.ownerIdMax).required(),
  name: Joi.string().min(1).max(EVENT_LIMITS.nameMax).required(),
  url: Joi.string().allow('').max(EVENT_LIMITS.urlMax).required(),
  content_id: Joi.string().allow('').max(EVENT_LIMITS.contentIdMax).required(),
  device_type: Joi.string().valid('desktop', 'tablet', 'mobile').required(),
  bot: Joi.boolean().required(),
  metadata: Joi.object()
    .pattern(
      Joi.string()
        .pattern(/^[^$.\0][^.\0]*$/)
        .max(EVENT_LIMITS.metadataKeyMax),
      Joi.string().allow('').max(EVENT_LIMITS.metadataValueMax),
    )
    .max(EVENT_LIMITS.metadataKeys)
    .required(),
  created: Joi.string().isoDate().required(),
  visitor: Joi.number()
    .integer()
    .min(0)
    .max(EVENT_LIMITS.visitorBound - 1),
  measures: measuresSchema,
  country: countrySchema,
  ...attributionSchemaFields,
};
const eventRecordSchema = Joi.object<EventRecord>(eventRecordFields);
const eventMessageSchema = Joi.object<EventMessage>({ v: Joi.number().valid(1).required(), ...eventRecordFields });

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEventMessage(msg: EventMessage): Uint8Array {
  return encoder.encode(JSON.stringify(msg));
}

export type DecodeResult<T = EventMessage> = { ok: true; value: T } | { ok: false; reason: string };

const RECORD_KEYS = 9;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d+$/;
const METADATA_KEY = /^[^$.\0][^.\0]*$/;
// exactly what Date#toISOString writes for years 0000-9999, the shape ingest publishes
const ISO_UTC_MS = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

const isString = (v: unknown, min: number, max: number): v is string =>
  typeof v === 'string' && v.length >= min && v.length <= max;

const isVisitor = (v: unknown): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < EVENT_LIMITS.visitorBound;

function isSafeMetadata(m: unknown): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  let keys = 0;
  for (const key in m) {
    // `__proto__` (an own key after JSON.parse) and anything else unusual is left to Joi
    if (
      ++keys > EVENT_LIMITS.metadataKeys ||
      key === '__proto__' ||
      key.length > EVENT_LIMITS.metadataKeyMax ||
      !METADATA_KEY.test(key)
    )
      return false;
    if (!isString((m as Record<string, unknown>)[key], 0, EVENT_LIMITS.metadataValueMax)) return false;
  }
  return true;
}

/**
 * A cheap structural check that accepts a subset of what the Joi schema accepts (the shape
 * ingest publishes: canonical UUID, toISOString dates); false means "ask Joi", not "invalid".
 * Joi costs ~10 us per message, several times the rest of the decode; the consumer decodes
 * every event. event-message.test.ts checks on thousands of generated messages that this
 * never accepts what Joi refuses.
 */
export function isPlainValidEventMessage(p: unknown): p is EventMessage {
  return (
    typeof p === 'object' &&
    p !== null &&
    (p as Record<string, unknown>).v === 1 &&
    isPlainValidEventRecord(p, RECORD_KEYS + 1)
  );
}

/** The same check for one event of a v2 batch (no `v`); `keys` is how many own keys the object must have. */
export function isPlainValidEventRecord(p: unknown, keys = RECORD_KEYS): p is EventRecord {
  if (typeof p !== 'object' || p === null) return false;
  const m = p as Record<string, unknown>;
  let count = 0;
  for (const _ in m) count++;
  // `country` is optional: present, the object must have one key more
  const country = m.country;
  if (country !== undefined) {
    if (!isCountryCode(country)) return false;
    keys++;
  }
  // `visitor`, `measures` and the attribution fields are optional: each one present is one key more
  const visitor = m.visitor;
  if (visitor !== undefined && !isVisitor(visitor)) return false;
  const measures = m.measures;
  if (measures !== undefined && !isPlainValidMeasures(measures)) return false;
  const attribution = plainAttributionCount(m);
  if (attribution < 0) return false;
  return (
    count === keys + (visitor === undefined ? 0 : 1) + (measures === undefined ? 0 : 1) + attribution &&
    typeof m.id === 'string' &&
    UUID.test(m.id) &&
    isString(m.owner_id, 1, EVENT_LIMITS.ownerIdMax) &&
    DIGITS.test(m.owner_id) &&
    isString(m.name, 1, EVENT_LIMITS.nameMax) &&
    isString(m.url, 0, EVENT_LIMITS.urlMax) &&
    isString(m.content_id, 0, EVENT_LIMITS.contentIdMax) &&
    (m.device_type === 'desktop' || m.device_type === 'mobile' || m.device_type === 'tablet') &&
    (m.bot === true || m.bot === false) &&
    typeof m.created === 'string' &&
    ISO_UTC_MS.test(m.created) &&
    !Number.isNaN(Date.parse(m.created)) &&
    isSafeMetadata(m.metadata)
  );
}

/** Joi alone: the authority, and the one that names the reason a message is refused. */
export function validateEventMessage(parsed: unknown): DecodeResult {
  return joiVerdict(eventMessageSchema, parsed);
}

/** Joi's verdict on one event of a v2 batch. */
export function validateEventRecord(parsed: unknown): DecodeResult<EventRecord> {
  return joiVerdict(eventRecordSchema, parsed);
}

function joiVerdict<T>(schema: Joi.ObjectSchema<T>, parsed: unknown): DecodeResult<T> {
  const { value, error } = schema.validate(parsed, { abortEarly: true, convert: false });
  if (error) return { ok: false, reason: error.message };
  return { ok: true, value };
}

/** Never throws: an undecodable message is a value the consumer dead-letters. `parsed` skips the JSON parse when the caller did it. */
export function decodeEventMessage(data: Uint8Array, parsed?: unknown): DecodeResult {
  if (parsed === undefined) {
    try {
      parsed = JSON.parse(decoder.decode(data));
    } catch {
      return { ok: false, reason: 'not JSON' };
    }
  }
  if (isPlainValidEventMessage(parsed)) return { ok: true, value: parsed };
  return validateEventMessage(parsed);
}
