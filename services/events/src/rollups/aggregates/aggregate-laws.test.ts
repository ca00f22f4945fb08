import { isLaterEvent } from '../../storage/event-order';
import { foldDevices, type Aggregate, type PerDevice, type RawEvent } from './aggregate';
import { CELL_AGGREGATES, copyCellValue, mergeCellValue, type CellValue } from './cell-aggregates';
import type { Latest } from './latest-aggregate';
import { emptySketch, sketchOfHashes } from '../../sketches/distinct-sketch';
import { emptySums, type SumsState } from './sums-aggregate';
import { emptyQuantileStates, type QuantilesState } from './quantiles-aggregate';
import { addValue, emptyQuantiles, quantileCount } from '../../sketches/quantile-sketch';

const VISITOR_SAMPLES = [
  emptySketch(),
  sketchOfHashes([7]),
  sketchOfHashes([7, 2 ** 52 - 1]),
  sketchOfHashes(Array.from({ length: 300 }, (_, i) => i * 1_000_003)),
];

/** Sample states of each registered aggregate, the empty state among them. */
const SAMPLES: { [K in keyof CellValue]: Array<CellValue[K][number]> } = {
  counts: [0, 1, 7, 1_000_000],
  latest: [
    null,
    [1, '0190-a', { k: 'x' }],
    [1, '0190-b', {}],
    [5, '0190-a', { k: 'y' }],
  ] satisfies Array<Latest | null>,
  uniques: VISITOR_SAMPLES,
  uniquesAllDevices: VISITOR_SAMPLES,
  sums: [
    emptySums(),
    [1, 1200, 0, 0, 0, 0],
    [2, 7, 1, 100, 3, 999_999_999_999],
    [0, 0, 0, 0, 1, 0],
    // past 2^53: a bigint, merged exactly with numbers
    [0, 0, 0, 0, 9_100, 9_100_000_000_000_003n],
  ],
  quantiles: [
    emptyQuantileStates(),
    [addValue(emptyQuantiles(), 1200), emptyQuantiles(), emptyQuantiles()],
    [
      addValue(addValue(emptyQuantiles(), 0, 2), 3_600_000),
      addValue(emptyQuantiles(), 100),
      addValue(emptyQuantiles(), 10 ** 12, 3),
    ],
    [emptyQuantiles(), emptyQuantiles(), addValue(emptyQuantiles(), 0)],
  ],
};

/** Raw events of one cell and device, created out of order, two of the same millisecond. */
const EVENTS: RawEvent[] = [
  { _id: '0190-b', created: new Date(5), metadata: { k: 'b', n: 1 }, visitor: 11, measures: { engaged_ms: 1500 } },
  { _id: '0190-a', created: new Date(9), visitor: 12, measures: { engaged_ms: 0, scroll_depth: 100, value: 1999 } },
  { _id: '0190-d', created: new Date(9), metadata: { k: 'd' }, visitor: 11, measures: { value: 1 } },
  // stored before visitors were recorded: counted, but no visitor
  { _id: '0190-c', created: new Date(1), metadata: { k: 'c' } },
];

/** What each aggregate must come to over raw events, computed the plain way. */
const RAW: { [K in keyof CellValue]: (events: RawEvent[]) => CellValue[K][number] } = {
  counts: (events) => events.length,
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
  uniquesAllDevices: (events) => sketchOfHashes(events.flatMap((e) => (e.visitor === undefined ? [] : [e.visitor]))),
  sums: (events) => {
    const sums: number[] = [0, 0, 0, 0, 0, 0];
    for (const e of events)
      (['engaged_ms', 'scroll_depth', 'value'] as const).forEach((m, i) => {
        const v = e.measures?.[m];
        if (v === undefined) return;
        sums[2 * i]! += 1;
        sums[2 * i + 1]! += v;
      });
    return sums.every((x) => x === 0) ? emptySums() : (sums as SumsState);
  },
  quantiles: (events) => {
    const states = [emptyQuantiles(), emptyQuantiles(), emptyQuantiles()];
    for (const e of events)
      (['engaged_ms', 'scroll_depth', 'value'] as const).forEach((m, i) => {
        const v = e.measures?.[m];
        if (v !== undefined) states[i] = addValue(states[i]!, v);
      });
    return states.every((s) => quantileCount(s) === 0) ? emptyQuantileStates() : (states as QuantilesState);
  },
};

describe.each(Object.keys(CELL_AGGREGATES) as Array<keyof CellValue>)('the %s aggregate', (field) => {
  const aggregate = CELL_AGGREGATES[field] as Aggregate<unknown>;
  const samples = SAMPLES[field] as unknown[];
  const addAll = (events: RawEvent[]) => events.reduce((state, e) => aggregate.add(state, e), aggregate.empty());

  test('when raw events are added one by one, then the state is what the raw events come to', () => {
    for (let n = 0; n <= EVENTS.length; n++) expect(addAll(EVENTS.slice(0, n))).toEqual(RAW[field](EVENTS.slice(0, n)));
  });

  test('when raw events are split in two and the parts merged, then the state is that of all of them', () => {
    for (let cut = 0; cut <= EVENTS.length; cut++)
      expect(aggregate.merge(addAll(EVENTS.slice(0, cut)), addAll(EVENTS.slice(cut)))).toEqual(addAll(EVENTS));
  });

  test('when states are encoded to JSON text and decoded, then they are unchanged; a cell stored before the aggregate existed decodes as empty', () => {
    const states = [samples[1], samples[0], samples[samples.length - 1]] as PerDevice<unknown>;
    const decoded = aggregate.decode(JSON.parse(JSON.stringify(aggregate.encode(states))));
    // stored with the devices folded together: what survives is their union
    if (aggregate.devicesFolded)
      expect(foldDevices(aggregate, decoded, [0, 1, 2])).toEqual(foldDevices(aggregate, states, [0, 1, 2]));
    else expect(decoded).toEqual(states);
    expect(aggregate.decode(undefined)).toEqual([aggregate.empty(), aggregate.empty(), aggregate.empty()]);
  });

  test('when merged with the empty state, then a state is unchanged (either side)', () => {
    for (const s of samples) {
      expect(aggregate.merge(aggregate.empty(), s)).toEqual(s);
      expect(aggregate.merge(s, aggregate.empty())).toEqual(s);
    }
  });

  test('when two states are merged in either order, then the result is the same', () => {
    for (const a of samples) for (const b of samples) expect(aggregate.merge(a, b)).toEqual(aggregate.merge(b, a));
  });

  test('when three states are merged in either grouping, then the result is the same', () => {
    for (const a of samples)
      for (const b of samples)
        for (const c of samples) {
          expect(aggregate.merge(aggregate.merge(a, b), c)).toEqual(aggregate.merge(a, aggregate.merge(b, c)));
        }
  });
});

describe('mergeCellValue', () => {
  test('when two cells merge, then every aggregate merges device by device and the copy of the source is untouched', () => {
    const e = emptySketch();
    const a: CellValue = {
      counts: [1, 0, 2],
      latest: [[1, 'a', {}], null, null],
      uniques: [sketchOfHashes([1]), e, sketchOfHashes([2, 3])],
      sums: [[1, 10, 0, 0, 0, 0], emptySums(), emptySums()],
      quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
      uniquesAllDevices: [sketchOfHashes([1, 2, 3]), e, e],
    };
    const b: CellValue = {
      counts: [0, 3, 1],
      latest: [[2, 'b', {}], [1, 'c', {}], null],
      uniques: [sketchOfHashes([1]), sketchOfHashes([4]), sketchOfHashes([5])],
      sums: [[2, 5, 0, 0, 0, 0], emptySums(), [0, 0, 1, 50, 0, 0]],
      quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
      uniquesAllDevices: [sketchOfHashes([1, 4, 5]), e, e],
    };
    const into = copyCellValue(a);
    mergeCellValue(into, b);
    expect(into).toEqual({
      counts: [1, 3, 3],
      latest: [[2, 'b', {}], [1, 'c', {}], null],
      uniques: [sketchOfHashes([1]), sketchOfHashes([4]), sketchOfHashes([2, 3, 5])],
      sums: [[3, 15, 0, 0, 0, 0], emptySums(), [0, 0, 1, 50, 0, 0]],
      quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
      uniquesAllDevices: [sketchOfHashes([1, 2, 3, 4, 5]), e, e],
    });
    expect(a).toEqual({
      counts: [1, 0, 2],
      latest: [[1, 'a', {}], null, null],
      uniques: [sketchOfHashes([1]), e, sketchOfHashes([2, 3])],
      sums: [[1, 10, 0, 0, 0, 0], emptySums(), emptySums()],
      quantiles: [emptyQuantileStates(), emptyQuantileStates(), emptyQuantileStates()],
      uniquesAllDevices: [sketchOfHashes([1, 2, 3]), e, e],
    });
  });
});
