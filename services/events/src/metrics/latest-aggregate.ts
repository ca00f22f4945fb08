import type { Document } from 'mongodb';
import { isLaterEvent } from '../storage/event-order';
import { StoredFormatError, type ByteReader, type ByteWriter } from './byte-codec';
import type { Aggregate, RawEvent } from './aggregate';

/** The latest event of a cell and device: created (epoch ms), event id, its stored metadata (string values). */
export type Latest = readonly [created: number, id: string, metadata: Readonly<Record<string, string>>];

/** The latest matching event: its metadata answers a report's metadata keys ("" for a key it lacks). */
export const latestAggregate: Aggregate<Latest | null> = {
  column: 'l',
  storage: 'perDevice',
  // metadata by name and by page; by country or campaign fields it is read from raw events
  families: ['t', 'p'],
  empty: () => null,
  isEmpty: (s) => s === null,
  add: (state, event) => laterOf(state, latestOf(event._id, event.created, event.metadata)),
  merge: laterOf,
  mergeInto: laterOf,
  own: (s) => s,
  // an event of no string metadata whose UUIDv7 id carries its time (what ingest assigns): its id alone
  compact: (s) => (s && idTime(s[1]) === s[0] && noKeys(s[2]) ? s[1] : undefined),
  expand: (id) => [idTime(id as string), id as string, NO_METADATA],
  compactOfRow: (row) => {
    const l = row.l as { c: unknown; i: unknown; m?: unknown };
    if (!(l.c instanceof Date) || typeof l.i !== 'string' || !noStrings(l.m)) return undefined;
    return idTime(l.i) === l.c.getTime() ? l.i : undefined;
  },
  // `$max` over {c: created, i: _id, m: metadata}: documents compare field by field, so this is
  // the newest event (ties broken by the time-ordered id) without a sort
  rowGroup: () => ({ l: { $max: { c: '$created', i: '$_id', m: { $ifNull: ['$metadata', {}] } } } }),
  fromRow: (row) => {
    const l = row.l as { c: Date; i: unknown; m?: Record<string, unknown> };
    return latestOf(l.i, l.c, l.m);
  },
  // a report keeps only its keys' values (positional output names: no caller key becomes a field name)
  reportRowGroup: ({ metadataKeys }) => {
    const values = Object.fromEntries(metadataKeys.map((key, i) => [`k${i}`, { $ifNull: [`$metadata.${key}`, ''] }]));
    return { l: { $max: { c: '$created', i: '$_id', m: values } } };
  },
  fromReportRow: (row, ask) => latestOfReportRow(row, ask.metadataKeys),
  write: writeLatest,
  read: readLatest,
  asked: (ask) => ask.metadataKeys.length > 0,
  bytes: (s) => (s ? 200 + s[1].length + metadataBytes(s[2]) : 0),
};

/**
 * The size of a latest event's metadata as JSON text, counted once per metadata object: a report
 * merging a cached page's entries meets the same objects run after run, and counts a group's size
 * at every merge.
 */
function metadataBytes(metadata: Readonly<Record<string, string>>): number {
  let bytes = METADATA_BYTES.get(metadata);
  if (bytes === undefined) METADATA_BYTES.set(metadata, (bytes = JSON.stringify(metadata).length));
  return bytes;
}

const METADATA_BYTES = new WeakMap<object, number>();

/** The value of a report's (stored) metadata key in the latest event, "" when it lacks the key. */
export function metadataValue(state: Latest | null, key: string): string {
  const metadata = state?.[2];
  return metadata && Object.hasOwn(metadata, key) ? metadata[key]! : '';
}

/** The report pipeline's `$max` keeps only the asked keys (positional output names: no caller key becomes a field). */
function latestOfReportRow(row: Document, keys: readonly string[]): Latest | null {
  const latest = row.l as { c: Date; i: unknown; m?: Record<string, unknown> } | undefined;
  if (!latest) return null;
  const metadata: Record<string, string> = {};
  keys.forEach((key, i) => {
    const value = latest.m?.[`k${i}`];
    if (typeof value === 'string' && value !== '') metadata[key] = value;
  });
  return [latest.c.getTime(), String(latest.i), metadata];
}

/** Metadata without string values: one shared object (a builder's unit holds a latest event per entry). */
const NO_METADATA: Readonly<Record<string, string>> = Object.freeze({});

/** Whether metadata has no value (a page's decoded metadata is an object of its own). */
function noKeys(metadata: Readonly<Record<string, string>>): boolean {
  if (metadata === NO_METADATA) return true;
  for (const _ in metadata) return false;
  return true;
}

/** Whether `latestOf` keeps nothing of this metadata: no own key with a string value, as Object.entries reads them. */
function noStrings(metadata: unknown): boolean {
  if (typeof metadata === 'string') return metadata === '';
  if (typeof metadata !== 'object' || metadata === null) return true;
  for (const key in metadata)
    if (Object.hasOwn(metadata, key) && typeof (metadata as Record<string, unknown>)[key] === 'string') return false;
  return true;
}

/** A stored latest event keeps the string values of the event's metadata only. */
function latestOf(id: unknown, created: Date, metadata: RawEvent['metadata']): Latest {
  let strings: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(metadata ?? {})) if (typeof v === 'string') (strings ??= {})[k] = v;
  return [created.getTime(), String(id), strings ?? NO_METADATA];
}

/** The later of two latest events (isLaterEvent: the same order as the pipelines' `$max`). */
function laterOf(a: Latest | null, b: Latest | null): Latest | null {
  if (!a) return b;
  if (!b) return a;
  return isLaterEvent(a[0], a[1], b[0], b[1]) ? a : b;
}

/** Each ASCII code's hex digit value (lower case only, as a stored UUID is), -1 for any other. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;

/** Whether `id` is a UUID in canonical lower-case form (8-4-4-4-12 hex digits). */
function isUuid(id: string): boolean {
  if (id.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (c >= 128 || HEX[c]! < 0) return false;
  }
  return true;
}

/** The time in the first 48 bits of a UUIDv7 (hex digits 0..12). */
function uuidTime(id: string): number {
  let t = 0;
  for (let i = 0; i < 13; i++) if (i !== 8) t = t * 16 + HEX[id.charCodeAt(i)]!;
  return t;
}

/** A UUID's bytes from hex digit `from` on (the dashes skipped; every group has an even number of digits). */
function writeUuidBytes(w: ByteWriter, id: string, from: number): void {
  for (let i = from; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    w.byte(HEX[id.charCodeAt(i)]! * 16 + HEX[id.charCodeAt(++i)]!);
  }
}

/**
 * The time of a UUIDv7 from its first 12 hex digits (lower case), read without a copy (a builder
 * reads it for each new entry); NaN for an id of another shape.
 */
function idTime(id: string): number {
  if (id.length < 13 || id.charCodeAt(8) !== 45) return NaN;
  let time = 0;
  for (let i = 0; i < 13; i++) {
    if (i === 8) continue;
    const c = id.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return NaN;
    time = time * 16 + digit;
  }
  return time;
}

/**
 * Stored: a flag byte, then 0 none; 3 an event whose id is a UUIDv7 carrying its created time
 * (what ingest assigns): the time relative to the unit's start and the id's other 10 bytes; 1
 * another UUID: the created time and the id's 16 bytes; 2 any other id: the time and the id as
 * text. Then the metadata as JSON in the column's string table: events share a few metadata
 * objects, each stored (and parsed) once per page.
 */
function writeLatest(w: ByteWriter, s: Latest | null): void {
  if (!s) return w.byte(0);
  const [created, id] = s;
  const uuid = isUuid(id);
  if (uuid && created >= w.base && uuidTime(id) === created) {
    w.byte(3);
    w.uint(created - w.base);
    writeUuidBytes(w, id, 14);
  } else if (uuid) {
    w.byte(1);
    w.uint(created);
    writeUuidBytes(w, id, 0);
  } else {
    w.byte(2);
    w.uint(created);
    w.string(id);
  }
  w.intern(JSON.stringify(s[2]));
}

function readLatest(r: ByteReader): Latest | null {
  const flag = r.byte();
  if (flag === 0) return null;
  let created: number;
  let hex: string;
  let id: string;
  if (flag === 3) {
    created = r.base + r.uint();
    hex = created.toString(16).padStart(12, '0') + Buffer.from(r.raw(10)).toString('hex');
    if (hex.length !== 32) throw new StoredFormatError('stored latest event time out of range');
    id = uuidOf(hex);
  } else if (flag === 1) {
    created = r.uint();
    id = uuidOf(Buffer.from(r.raw(16)).toString('hex'));
  } else if (flag === 2) {
    created = r.uint();
    id = r.string();
  } else throw new StoredFormatError(`unknown stored latest event flag ${flag}`);
  return [created, id, r.interned(parseMetadata)];
}

function uuidOf(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Stored metadata: an object of string values (anything else is damage). */
function parseMetadata(text: string): Readonly<Record<string, string>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StoredFormatError('stored metadata is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoredFormatError('stored metadata is not an object');
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return Object.freeze(out);
}
