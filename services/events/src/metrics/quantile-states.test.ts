import { seededHashes } from '../../test/support/seeded-hashes';
import { DenseQuantileBins } from '../sketches/dense-quantile-bins';
import { PendingQuantiles } from '../sketches/pending-quantiles';
import { QuantileBins } from '../sketches/quantile-bins';
import { quantileAt, quantilesOf } from '../sketches/quantile-sketch';
import type { RawEvent, ReportAsk } from './aggregate';
import { ByteReader, ByteWriter } from './byte-codec';
import { rowOfEvent } from './measure-rows';
import { quantilesAggregate as q, type QuantilesState } from './quantiles-aggregate';

const event = (measures: RawEvent['measures']): RawEvent => ({
  _id: '01900000-0000-7000-8000-00000000000a',
  created: new Date(0),
  ...(measures ? { measures } : {}),
});

const stored = (s: QuantilesState): string => {
  const w = new ByteWriter();
  q.write(w, s);
  return Buffer.from(w.bytes()).toString('hex');
};

/** A state as a page stores it, read back (sketches, shared by a page cache). */
const readBack = (s: QuantilesState): QuantilesState => {
  const w = new ByteWriter();
  q.write(w, s);
  return q.read(new ByteReader(w.bytes()));
};

/** A part as a report meets it: a raw row's bins (fromRow) or a stored entry read back. */
function randomPart(next: () => number): QuantilesState {
  const measures = (): RawEvent['measures'] => {
    const m: Record<string, number> = {};
    if (next() % 3 > 0) m.engaged_ms = [1, 128, 129, 30_000, 1_000_000_000][next() % 5]! + (next() % 5000);
    if (next() % 2 > 0) m.scroll_depth = next() % 101;
    if (next() % 5 === 0) m.value = next() % 100_000;
    return m as RawEvent['measures'];
  };
  if (next() % 2 === 0) return q.fromRow(rowOfEvent(event(measures())));
  let entry = q.empty();
  for (let i = 1 + (next() % 12); i > 0; i--) entry = q.add(entry, event(measures()));
  return readBack(entry);
}

const METRICS = [
  'engaged_ms_p50',
  'engaged_ms_p90',
  'engaged_ms_p99',
  'scroll_depth_p90',
  'value_p50',
  'engaged_ms_gte_10000',
];

describe('quantiles: the report merge (dense) and the builder merge (sparse)', () => {
  test('when random parts of every form are merged, then the report merge stores and answers what the builder merge does', () => {
    const next = seededHashes(2026);
    const metrics = METRICS.map(
      (name) =>
        q.parseMetric!(name) as Exclude<ReturnType<NonNullable<typeof q.parseMetric>>, undefined | { error: string }>,
    );
    for (let trial = 0; trial < 300; trial++) {
      const parts = Array.from({ length: 1 + (next() % 25) }, () => randomPart(next));
      const before = parts.map(stored);
      let report: QuantilesState | undefined;
      let builder: QuantilesState | undefined;
      for (const part of parts) {
        report = report === undefined ? q.reportOwn!(part) : q.reportMergeInto!(report, part);
        builder = builder === undefined ? q.own(part) : q.mergeInto(builder, part);
      }
      expect(stored(report!)).toBe(stored(builder!));
      for (const m of metrics) {
        const a: Record<string, unknown> = {};
        const b: Record<string, unknown> = {};
        q.fields!(report!, m, a);
        q.fields!(builder!, m, b);
        expect(a).toEqual(b);
      }
      // parts are shared (a page cache): never written
      expect(parts.map(stored)).toEqual(before);
      // the builder keeps its sparse bins
      for (const bins of builder!) if (bins) expect(bins).toBeInstanceOf(QuantileBins);
    }
  });

  test("when groups' states are merged into another group's (totals, the country floor), then they are left as they were", () => {
    const next = seededHashes(7);
    for (let trial = 0; trial < 100; trial++) {
      const groups = Array.from({ length: 2 + (next() % 4) }, () => {
        let s = q.reportOwn!(randomPart(next));
        for (let i = next() % 5; i > 0; i--) s = q.reportMergeInto!(s, randomPart(next));
        return s;
      });
      const before = groups.map(stored);
      let total = q.reportOwn!(groups[0]!);
      for (const g of groups.slice(1)) total = q.reportMergeInto!(total, g);
      expect(groups.map(stored)).toEqual(before);
      expect(stored(total)).toBe(stored(groups.reduce((a, b) => q.merge(a, b))));
    }
  });

  test('when a read merges for a report that asks of one measure, then the groups keep that one alone, with the same answers', () => {
    const next = seededHashes(99);
    const p90 = q.parseMetric!('engaged_ms_p90') as Exclude<
      ReturnType<NonNullable<typeof q.parseMetric>>,
      undefined | { error: string }
    >;
    const ask: ReportAsk = { metadataKeys: [], metrics: new Map([['q', [p90]]]), devices: [0, 1, 2], allDevices: true };
    for (let trial = 0; trial < 100; trial++) {
      const parts = Array.from({ length: 1 + (next() % 10) }, () => randomPart(next));
      let asked: QuantilesState | undefined;
      let every: QuantilesState | undefined;
      for (const part of parts) {
        asked = asked === undefined ? q.reportOwn!(part, ask) : q.reportMergeInto!(asked, part, ask);
        every = every === undefined ? q.reportOwn!(part) : q.reportMergeInto!(every, part);
      }
      expect(asked!.slice(1)).toEqual([null, null]);
      const a: Record<string, unknown> = {};
      const b: Record<string, unknown> = {};
      q.fields!(asked!, p90, a);
      q.fields!(every!, p90, b);
      expect(a).toEqual(b);
    }
  });

  test('when a group has a few parts, then they are held as they are; past 16, folded into dense bins of its own', () => {
    const one = readBack(q.add(q.add(q.empty(), event({ engaged_ms: 5000 })), event({ engaged_ms: 5100 })));
    const held = q.reportOwn!(one);
    expect(held[0]).toBe(one[0]);
    let merged = q.reportMergeInto!(held, q.fromRow(rowOfEvent(event({ engaged_ms: 7000 }))));
    expect(merged[0]).toBeInstanceOf(PendingQuantiles);
    expect(q.bytes(merged)).toBeGreaterThan(q.bytes(q.empty()));
    for (let i = 0; i < 15; i++)
      merged = q.reportMergeInto!(merged, q.fromRow(rowOfEvent(event({ engaged_ms: 8000 + i }))));
    expect(merged[0]).toBeInstanceOf(DenseQuantileBins);
    const values = [5000, 5100, 7000, ...Array.from({ length: 15 }, (_, i) => 8000 + i)];
    expect(q.rank!(merged, q.parseMetric!('engaged_ms_p90') as never)).toBe(quantileAt(quantilesOf(values), 0.9));
  });
});
