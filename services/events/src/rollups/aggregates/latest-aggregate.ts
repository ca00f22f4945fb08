import { isLaterEvent } from '../../storage/event-order';
import type { LatestEvent } from '../../reporting/read/count-source';
import type { Aggregate, PerDevice, RawEvent } from './aggregate';

/** The latest event of a cell and device: created (epoch ms), event id, its whole stored metadata. */
export type Latest = [created: number, id: string, metadata: Record<string, string>];

/**
 * The latest event (its metadata answers a report's metadata keys): stored per device in a
 * cell's `l`, `l[i]` for entry `i`, so reports without metadata leave it on the server.
 */
export const latestAggregate: Aggregate<Latest | null, LatestEvent | undefined> = {
  empty: () => null,
  add: (state, event) => laterOf(state, latestOf(event._id, event.created, event.metadata)),
  merge: laterOf,
  stored: 'side',
  sideField: 'l',
  encode: (states) => states,
  decode: (stored) => (stored as PerDevice<Latest | null> | undefined) ?? [null, null, null],
  // the same `$max` over {created, _id, metadata} the report pipeline uses, so ties break alike
  group: () => ({ l: { $max: { c: '$created', i: '$_id', m: { $ifNull: ['$metadata', {}] } } } }),
  fromGroup: (row) => {
    const l = row.l as { c: Date; i: unknown; m?: Record<string, unknown> };
    return latestOf(l.i, l.c, l.m);
  },
  // the requested keys' values ("" when absent); nothing without keys, so a report without metadata carries none
  answer: (state, metadataKeys) => {
    if (!state || metadataKeys.length === 0) return undefined;
    const metadata = state[2];
    return {
      created: new Date(state[0]),
      id: state[1],
      metadata: metadataKeys.map((key) =>
        Object.hasOwn(metadata, key) && typeof metadata[key] === 'string' ? metadata[key] : '',
      ),
    };
  },
  answerField: 'latest',
  // `$max` over {c: created, i: _id, m: {...}}: documents compare field by field, so this picks
  // the newest event (ties broken by the time-ordered id) without sorting; `$ifNull` turns a
  // missing key into "" (and keeps the expression portable to the MongoDB stand-in)
  asked: (ask) => ask.metadataKeys.length > 0,
  reportGroup: ({ metadataKeys }) => {
    if (metadataKeys.length === 0) return {};
    const values = Object.fromEntries(metadataKeys.map((key, i) => [`k${i}`, { $ifNull: [`$metadata.${key}`, ''] }]));
    return { latest: { $max: { c: '$created', i: '$_id', m: values } } };
  },
  fromReportGroup: (row, { metadataKeys }) => {
    const keyCount = metadataKeys.length;
    if (keyCount === 0) return undefined;
    const latest = row.latest as { c: Date; i: unknown; m?: Record<string, unknown> };
    const metadata: string[] = [];
    for (let i = 0; i < keyCount; i++) metadata.push(stringOrEmpty(latest.m?.[`k${i}`]));
    return { created: latest.c, id: String(latest.i), metadata };
  },
};

function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** A stored latest event keeps the string values of the event's metadata only. */
function latestOf(id: unknown, created: Date, metadata: RawEvent['metadata']): Latest {
  const strings: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata ?? {})) if (typeof v === 'string') strings[k] = v;
  return [created.getTime(), String(id), strings];
}

/** The later of two latest events (isLaterEvent: the same order as the report pipeline's `$max`). */
function laterOf(a: Latest | null, b: Latest | null): Latest | null {
  if (!a) return b;
  if (!b) return a;
  return isLaterEvent(a[0], a[1], b[0], b[1]) ? a : b;
}
