import { Binary } from 'mongodb';
import { AGGREGATE_NAMES, aggregateOf, emptyCellValue, type AggregateName, type CellValue } from '../metrics/registry';
import { seededHashes } from '../../test/support/seeded-hashes';
import { sketchOfHashes, type DistinctSketch } from '../sketches/distinct-sketch';
import { addVisitor, emptySample, VISITOR_SAMPLE, type VisitorSample } from '../sketches/visitor-sample';
import { FAMILIES } from './families';
import { DecodedPage, forEachStoredEntry } from './page-reader';
import { writePages, type CellEntry } from './page-writer';

// Page format 4: in the pages family an entry's exact visitor sample (`r`) leaves out the hashes
// its exact visitor set (`u`) holds; a sampled one (past 4,096 visitors) keeps them.
const pages = FAMILIES.find((f) => f.id === 'p')!;
const K = VISITOR_SAMPLE.k;

/** An entry of these visitors (each with `i % 3 + 1` events, from DE or FR) on the desktop. */
function entryOf(url: string, hashes: readonly number[]): CellEntry {
  const value = emptyCellValue();
  const sample = emptySample();
  hashes.forEach((h, i) => addVisitor(sample, h, (i % 3) + 1, i % 2 === 0 ? 'DE' : 'FR'));
  value.count[0] = sample.events;
  value.uniques[0] = sketchOfHashes(hashes);
  value.frequency[0] = sample as CellValue['frequency'][0];
  return { name: 'impression', keys: ['', url], value };
}

const hashes = Array.from({ length: K + 500 }, seededHashes(7));
const ENTRIES = [
  entryOf('https://a.example/1', hashes.slice(0, 3)),
  entryOf('https://a.example/2', hashes.slice(3, 203)),
  // past K visitors: a bottom-K sample and a HyperLogLog, stored as before
  entryOf('https://a.example/3', hashes),
  entryOf('https://a.example/4', hashes.slice(203, 204)),
];
const view = (s: unknown) => {
  const sample = s as VisitorSample | undefined;
  return (
    sample && {
      sampled: sample.sampled,
      events: sample.events,
      hashes: [...sample.hashes.subarray(0, sample.size)],
      counts: [...sample.counts.subarray(0, sample.size)],
      countries: [...sample.countries.subarray(0, sample.size * 4)],
    }
  );
};
const sampleOf = (e: CellEntry) => e.value.frequency[0];
const columnBytes = (doc: Record<string, unknown>, column: string) => (doc[column] as Binary).position;

describe('visitor samples stored without the hashes of their visitor sets', () => {
  const doc = writePages('1:0@g', '7001', pages, ENTRIES)[0]!;
  const format3 = writePages('1:0@g', '7001', pages, ENTRIES, undefined, 3)[0]!;

  test('when a page is written, then its samples take far fewer bytes than with their hashes, and every other column is the same', () => {
    expect(columnBytes(doc, 'r')).toBeLessThan(columnBytes(format3, 'r') - 200 * 6);
    // (the keys `k` are laid out as runs from format 6 on: page-keys.ts)
    for (const column of ['n', 'u', 'ud', 'l', 's', 'q'])
      expect([column, doc[column] && columnBytes(doc, column)]).toEqual([
        column,
        format3[column] && columnBytes(format3, column),
      ]);
  });

  test('when either format is read whole, then every sample and visitor set is as written', () => {
    for (const d of [doc, format3]) {
      const read: Array<[unknown, DistinctSketch]> = [];
      forEachStoredEntry(d, (_n, _k, value) => read.push([value.frequency[0], value.uniques[0] as DistinctSketch]));
      expect(read.map(([r]) => view(r))).toEqual(ENTRIES.map((e) => view(sampleOf(e))));
      expect(read.map(([, u]) => u)).toEqual(ENTRIES.map((e) => e.value.uniques[0]));
    }
  });

  test('when a report reads the samples of some entries only, then they are read with just those visitor sets, and the visitor sets are not kept as decoded', () => {
    const page = new DecodedPage(doc);
    page.load(
      'frequency',
      false,
      doc,
      () => 0,
      (i) => i === 1 || i === 2,
    );
    expect([0, 1, 2, 3].map((i) => view(page.foldedState('frequency', i)))).toEqual([
      undefined,
      view(sampleOf(ENTRIES[1]!)),
      view(sampleOf(ENTRIES[2]!)),
      undefined,
    ]);
    expect(page.has('uniques', false)).toBe(false);
    page.load('frequency', false, doc, () => 0);
    expect([0, 1, 2, 3].map((i) => view(page.foldedState('frequency', i)))).toEqual(
      ENTRIES.map((e) => view(sampleOf(e))),
    );
  });

  test('when a sample without its hashes is read without its visitor sets, or with sets of other sizes, then the page is damaged', () => {
    const lacking = { ...doc, u: undefined };
    expect(() => new DecodedPage(lacking).load('frequency', false, lacking, () => 0)).toThrow(/lacks its column u/);
    // the first entry's visitor set written with one visitor more: its sample no longer matches
    const other = writePages('1:0@g', '7001', pages, [entryOf('https://a.example/1', hashes.slice(0, 4))])[0]!;
    const mixed = { ...doc, u: other.u, k: other.k };
    expect(() => new DecodedPage(mixed).load('frequency', false, mixed, () => 0)).toThrow(/stored|visitor/);
    const frequency = aggregateOf('frequency');
    expect(frequency.basis).toBe('uniques');
  });
});

test('when an aggregate leans on a basis, then the basis is a folded aggregate written and read before it', () => {
  for (const name of AGGREGATE_NAMES) {
    const basis = aggregateOf(name).basis as AggregateName | undefined;
    if (basis === undefined) continue;
    // the page writer keeps the unions in registry order; the reader decodes the basis first
    expect(AGGREGATE_NAMES.indexOf(basis)).toBeGreaterThanOrEqual(0);
    expect(AGGREGATE_NAMES.indexOf(basis)).toBeLessThan(AGGREGATE_NAMES.indexOf(name));
    expect(aggregateOf(basis).storage).not.toBe('perDevice');
  }
});
