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
  empty: () => null,
  isEmpty: (s) => s === null,
  add: (state, event) => laterOf(state, latestOf(event._id, event.created, event.metadata)),
  merge: laterOf,
  mergeInto: laterOf,
  own: (s) => s,
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
  bytes: (s) => (s ? 200 + s[1].length + JSON.stringify(s[2]).length : 0),
};

/** The values of the report's (stored) metadata keys in the latest event, "" for a key it lacks. */
export function metadataValues(state: Latest | null, keys: readonly string[]): string[] {
  const metadata = state?.[2];
  return keys.map((key) => (metadata && Object.hasOwn(metadata, key) ? metadata[key]! : ''));
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

/** A stored latest event keeps the string values of the event's metadata only. */
function latestOf(id: unknown, created: Date, metadata: RawEvent['metadata']): Latest {
  const strings: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata ?? {})) if (typeof v === 'string') strings[k] = v;
  return [created.getTime(), String(id), strings];
}

/** The later of two latest events (isLaterEvent: the same order as the pipelines' `$max`). */
function laterOf(a: Latest | null, b: Latest | null): Latest | null {
  if (!a) return b;
  if (!b) return a;
  return isLaterEvent(a[0], a[1], b[0], b[1]) ? a : b;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Stored: a flag byte (0 none, 1 an event whose id is a lower-case UUID, 2 any other id), the
 * created time, the id (16 bytes, or a string), and the metadata as JSON in the column's string
 * table: events share a few metadata objects, each stored (and parsed) once per page.
 */
function writeLatest(w: ByteWriter, s: Latest | null): void {
  if (!s) return w.byte(0);
  const uuid = UUID.test(s[1]);
  w.byte(uuid ? 1 : 2);
  w.uint(s[0]);
  if (uuid) w.raw(Buffer.from(s[1].replace(/-/g, ''), 'hex'));
  else w.string(s[1]);
  w.intern(JSON.stringify(s[2]));
}

function readLatest(r: ByteReader): Latest | null {
  const flag = r.byte();
  if (flag === 0) return null;
  if (flag !== 1 && flag !== 2) throw new StoredFormatError(`unknown stored latest event flag ${flag}`);
  const created = r.uint();
  let id: string;
  if (flag === 1) {
    const hex = Buffer.from(r.raw(16)).toString('hex');
    id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  } else id = r.string();
  return [created, id, r.interned(parseMetadata)];
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
