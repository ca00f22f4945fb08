import { isLaterEvent } from '../storage/event-order';
import { emptySketch, sketchOfHashes } from '../sketches/distinct-sketch';
import { addVisitor, emptySample, type VisitorSample } from '../sketches/visitor-sample';
import { QuantileBins } from '../sketches/quantile-bins';
import type { Aggregate, RawEvent } from './aggregate';
import { ByteReader, ByteWriter } from './byte-codec';
import type { Latest } from './latest-aggregate';
import { AGGREGATES, type CellValue } from './registry';
import type { QuantilesState } from './quantiles-aggregate';
import type { SumsState } from './sums-aggregate';

const bins = (...values: Array<[number, number]>): QuantileBins => {
  const b = new QuantileBins();
  for (const [v, n] of values) b.addValue(v, n);
  return b;
};

const VISITOR_SAMPLES = [
  emptySketch(),
  sketchOfHashes([7]),
  sketchOfHashes([7, 2 ** 52 - 1]),
  sketchOfHashes(Array.from({ length: 300 }, (_, i) => i * 1_000_003)),
  sketchOfHashes(Array.from({ length: 5000 }, (_, i) => i * 900_000_007)),
];

/** A visitor sample of (hash, events, country) rows. */
const visitors = (...rows: Array<[number, number, string | null]>): VisitorSample =>
  rows.reduce((s, [hash, events, country]) => addVisitor(s, hash, events, country), emptySample());

/** Sample states of each registered aggregate, the empty state first. */
const SAMPLES: { [K in keyof CellValue]: Array<CellValue[K][number]> } = {
  count: [0, 1, 7, 1_000_000],
  latest: [
    null,
    [1, '01900000-0000-7000-8000-00000000000a', { k: 'x' }],
    [1, '01900000-0000-7000-8000-00000000000b', {}],
    // a UUIDv7 carrying its created time, no metadata: what ingest stores
    [0x0190_0000_0000, '01900000-0000-7abc-8def-00000000000c', {}],
    [5, 'not-a-uuid', { k: 'y', 'a.b': 'dotted' }],
  ] satisfies Array<Latest | null>,
  uniques: VISITOR_SAMPLES,
  sums: [
    AGGREGATES.sums.empty(),
    [1, 1200, 0, 0, 0, 0],
    [2, 7, 1, 100, 3, 999_999_999_999],
    [0, 0, 0, 0, 1, 0],
    // a value sum past 2^53 (a bigint)
    [0, 0, 0, 0, 9_100, 9_100_000_000_000_000n],
  ] as SumsState[],
  quantiles: [
    AGGREGATES.quantiles.empty(),
    [bins([1200, 1]), null, null],
    [bins([0, 2], [3_600_000, 1]), bins([100, 1]), bins([10 ** 12, 3])],
    [null, null, bins([0, 1])],
  ] as QuantilesState[],
  frequency: [
    emptySample(),
    visitors([7, 1, 'DE']),
    visitors([7, 3, 'AT'], [2 ** 52 - 1, 1, null]),
    // past the exact size: a bottom-K sample
    visitors(
      ...Array.from(
        { length: 5000 },
        (_, i) => [i * 900_000_007, 1 + (i % 4), i % 3 ? 'FR' : null] as [number, number, string | null],
      ),
    ),
  ],
};

/** Raw events of one cell and device, created out of order, two of the same millisecond. */
const EVENTS: RawEvent[] = [
  {
    _id: '0190-b',
    created: new Date(5),
    metadata: { k: 'b', n: 1 },
    visitor: 11,
    measures: { engaged_ms: 1500 },
    country: 'DE',
  },
  { _id: '0190-a', created: new Date(9), visitor: 12, measures: { engaged_ms: 0, scroll_depth: 100, value: 1999 } },
  { _id: '0190-d', created: new Date(9), metadata: { k: 'd' }, visitor: 11, measures: { value: 1 } },
  // stored before visitors were recorded: counted, but no visitor
  { _id: '0190-c', created: new Date(1), metadata: { k: 'c' } },
];

/** What each aggregate must come to over raw events, computed the plain way. */
const RAW: { [K in keyof CellValue]: (events: RawEvent[]) => CellValue[K][number] } = {
  frequency: (events) => {
    const s = emptySample();
    for (const e of events) if (e.visitor !== undefined) addVisitor(s, e.visitor, 1, e.country ?? null);
    return s;
  },
  count: (events) => events.length,
  latest: (events) => {
    let newest: RawEvent | undefined;
    for (const e of events)
      if (!newest || isLaterEvent(e.created.getTime(), e._id, newest.created.getTime(), newest._id)) newest = e;
    if (!newest) return null;
    const strings = Object.fromEntries(
      Object.entries(newest.metadata ?? {}).filter(([, v]) => typeof v === 'string'),
    ) as Record<string, string>;
    return [newest.created.getTime(), newest._id, strings];
  },
  uniques: (events) => sketchOfHashes(events.flatMap((e) => (e.visitor === undefined ? [] : [e.visitor]))),
  sums: (events) => {
    const sums: number[] = [0, 0, 0, 0, 0, 0];
    for (const e of events)
      (['engaged_ms', 'scroll_depth', 'value'] as const).forEach((m, i) => {
        const v = e.measures?.[m];
        if (v === undefined) return;
        sums[2 * i]! += 1;
        sums[2 * i + 1]! += v;
      });
    return sums.every((x) => x === 0) ? AGGREGATES.sums.empty() : (sums as SumsState);
  },
  quantiles: (events) => {
    const states: Array<QuantileBins | null> = [null, null, null];
    for (const e of events)
      (['engaged_ms', 'scroll_depth', 'value'] as const).forEach((m, i) => {
        const v = e.measures?.[m];
        if (v !== undefined) (states[i] ??= new QuantileBins()).addValue(v);
      });
    return states.every((s) => s === null) ? AGGREGATES.quantiles.empty() : states;
  },
};

/** Equality as a report sees it: two states are the same when their stored forms are. */
function stored(aggregate: Aggregate<unknown>, state: unknown): string {
  const w = new ByteWriter();
  aggregate.write(w, state);
  return `${w.internedTable().join('\u0000')}|${w.bytes().toString('hex')}`;
}

describe.each(Object.keys(AGGREGATES) as Array<keyof CellValue>)('the %s aggregate', (field) => {
  const aggregate = AGGREGATES[field] as Aggregate<unknown>;
  const samples = SAMPLES[field] as unknown[];
  const same = (a: unknown, b: unknown) => expect(stored(aggregate, a)).toBe(stored(aggregate, b));
  const addAll = (events: RawEvent[]) => events.reduce((state, e) => aggregate.add(state, e), aggregate.empty());

  test('when raw events are added one by one, then the state is what the raw events come to', () => {
    for (let n = 0; n <= EVENTS.length; n++) same(addAll(EVENTS.slice(0, n)), RAW[field](EVENTS.slice(0, n)));
  });

  test('when raw events are split in two and the parts merged, then the state is that of all of them', () => {
    for (let cut = 0; cut <= EVENTS.length; cut++)
      same(aggregate.merge(addAll(EVENTS.slice(0, cut)), addAll(EVENTS.slice(cut))), addAll(EVENTS));
  });

  test('when a state is written and read back, then it is unchanged (and reads leave no byte behind)', () => {
    for (const s of samples) {
      const w = new ByteWriter();
      aggregate.write(w, s);
      aggregate.write(w, s);
      const r = new ByteReader(w.bytes());
      r.table = w.internedTable();
      same(aggregate.read(r), s);
      same(aggregate.read(r), s);
      expect(r.done).toBe(true);
    }
  });

  test('when merged with the empty state, then a state is unchanged (either side), and the empty state is empty', () => {
    expect(aggregate.isEmpty(aggregate.empty())).toBe(true);
    for (const s of samples) {
      same(aggregate.merge(aggregate.empty(), s), s);
      same(aggregate.merge(s, aggregate.empty()), s);
    }
  });

  test('when two states are merged in either order, then the result is the same', () => {
    for (const a of samples) for (const b of samples) same(aggregate.merge(a, b), aggregate.merge(b, a));
  });

  test('when three states are merged in either grouping, then the result is the same', () => {
    for (const a of samples)
      for (const b of samples)
        for (const c of samples)
          same(aggregate.merge(aggregate.merge(a, b), c), aggregate.merge(a, aggregate.merge(b, c)));
  });

  test('when parts are merged in place into an owned state, then it equals the pure merge and no part changes', () => {
    for (const a of samples)
      for (const b of samples) {
        const before = [stored(aggregate, a), stored(aggregate, b)];
        const owned = aggregate.mergeInto(aggregate.own(a), b);
        same(owned, aggregate.merge(a, b));
        expect([stored(aggregate, a), stored(aggregate, b)]).toEqual(before);
        // and merging more into it still leaves the parts alone
        aggregate.mergeInto(owned, a);
        expect([stored(aggregate, a), stored(aggregate, b)]).toEqual(before);
      }
  });

  test('when a state has a compact form, then it expands to an equal state the caller owns', () => {
    let compacted = 0;
    for (const s of samples) {
      const compact = aggregate.compact?.(s);
      if (compact === undefined) continue;
      compacted++;
      const before = stored(aggregate, s);
      same(aggregate.expand!(compact), s);
      for (const b of samples) aggregate.mergeInto(aggregate.expand!(compact), b);
      expect(stored(aggregate, s)).toBe(before);
      same(aggregate.expand!(compact), s);
    }
    // an aggregate with a compact form has one for a state of one event
    expect(compacted > 0).toBe(aggregate.compact !== undefined);
  });
});
