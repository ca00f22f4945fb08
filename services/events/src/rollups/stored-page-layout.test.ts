import { Binary } from 'mongodb';
import { AGGREGATE_NAMES, aggregateOf, emptyCellValue, type CellValue } from '../metrics/registry';
import { sketchOfHashes } from '../sketches/distinct-sketch';
import { QuantileBins } from '../sketches/quantile-bins';
import { FAMILIES } from './families';
import { visitorIndexOf } from '../sketches/visitor-dictionary';
import { DecodedPage, forEachStoredEntry, visitorDictionary } from './page-reader';
import { deviceColumn } from './page-layout';
import { writePages, type CellEntry } from './page-writer';

const pages = FAMILIES.find((f) => f.id === 'p')!;

function cell(edit: (v: CellValue) => void): CellValue {
  const v = emptyCellValue();
  edit(v);
  return v;
}

/** Two entries: one on a single device, one on two devices with measures and metadata. */
const ENTRIES: CellEntry[] = [
  {
    name: 'click',
    keys: ['c1', 'https://a.example/x'],
    value: cell((v) => {
      v.count[2] = 3;
      v.latest[2] = [1_790_000_000_123, '01900000-0000-7000-8000-00000000000a', { campaign: 'spring' }];
      v.uniques[2] = sketchOfHashes([5, 2 ** 40]);
    }),
  },
  {
    name: 'view',
    keys: ['', 'https://a.example/x'],
    value: cell((v) => {
      v.count[0] = 1;
      v.count[1] = 2;
      v.latest[0] = [1_790_000_000_000, 'not-a-uuid', {}];
      v.latest[1] = [1_790_000_000_500, '01900000-0000-7000-8000-00000000000b', { campaign: 'spring' }];
      v.uniques[0] = sketchOfHashes([9]);
      v.uniques[1] = sketchOfHashes([9, 10]);
      v.sums[1] = [2, 3000, 0, 0, 0, 0];
      const bins = new QuantileBins();
      bins.addValue(1000);
      bins.addValue(2000);
      v.quantiles[1] = [bins, null, null];
    }),
  },
];

const hex = (b: unknown) => Buffer.from((b as Binary).buffer).toString('hex');

describe('the stored page layout', () => {
  const written = writePages('1:0@g', '7001', pages, ENTRIES);
  const doc = written[0]!;
  const more = written.slice(1);

  test('when entries are written, then one page holds them with its id, owner, family and page count', () => {
    expect(more).toEqual([]);
    expect(doc).toMatchObject({ _id: '["c","1:0@g","7001","p",0]', g: '1:0@g', o: '7001', f: 'p', p: 0, x: 1 });
    expect(Object.keys(doc).sort()).toEqual([
      '_id',
      'f',
      'g',
      'k',
      'l',
      'n',
      'o',
      'p',
      'q',
      'qd',
      'r',
      's',
      'u',
      'ud',
      'x',
    ]);
  });

  test('when the bytes are compared with the pinned layout, then they are the same (a change here needs a new PAGE_FORMAT)', () => {
    expect({
      k: hex(doc.k),
      n: hex(doc.n),
      u: hex(doc.u),
      ud: hex(doc.ud),
      s: hex(doc.s),
    }).toEqual({
      // 0x40 + dimensions 2 (the layout of format 6); no dimension as differences; names click,
      // view; key strings "", c1, https://a.example/x (front-coded); 2 entries; 2 runs of names:
      // click x 1, view x 1; keys (c1, url), ("", url); masks packed four bits each: mobile (4),
      // then desktop + tablet (3)
      k: '4200020005636c69636b00047669657703000000026331001368747470733a2f2f612e6578616d706c652f780202000101010102000234',
      // no interned strings; counts: 3 (mobile), then 1 and 2 (desktop, tablet)
      n: '00030102',
      // per entry the union: exact {5, 2^40}, exact {9, 10}
      u: '00010205fbffffffff1f01020901',
      // the two-device entry's devices, knowing their union {9, 10}: kind 2, a mark per visitor of
      // a bit per device the entry has (desktop, tablet), packed low bits first: 9 on both (0b11),
      // 10 on tablet (0b10)
      ud: '00020b',
      // sums per device: none, none, then tablet: engaged_ms 2 events summing 3000
      s: '0000000102b817',
    });
  });

  test("when an owner's unit has a visitor dictionary, then its pinned bytes are the same: the hashes and the sets' indexes in bits", () => {
    const totals = FAMILIES.find((f) => f.id === 't')!;
    const sets = [sketchOfHashes([5, 2 ** 40]), sketchOfHashes([9])];
    const entries: CellEntry[] = sets.map((set, i) => ({
      name: `n${i}`,
      keys: [],
      value: cell((v) => {
        v.count[0] = 1;
        v.uniques[0] = set;
      }),
    }));
    const visitors = visitorIndexOf(sets.map((s) => (s.kind === 'exact' ? s.hashes : [])))!;
    const [page] = writePages('1:0@g', '7001', totals, entries, undefined, undefined, visitors);
    expect({ v: hex(page!.v), u: hex(page!.u) }).toEqual({
      // a zero byte (the form in bits), 3 hashes; the high parts' bitmap (3 ones, then 3 bits of
      // zeros: the hashes are below 2^52, their low parts 50 bits each), then the low parts of
      // 5, 9 and 2^40, lowest bit first (elias-fano.ts)
      v: '00034701000000000009000000000000000000000400',
      // no interned strings; {5, 2^40} and {9} as bitmaps over the dictionary of three (kind 5)
      u: '0005050502',
    });
    const back = new DecodedPage(page!);
    back.visitors = visitorDictionary(page!);
    back.load('uniques', false, page!, () => 0);
    expect(back.foldedStates('uniques')).toEqual(sets);
  });

  test('when the page is read back, then every entry has its states per device', () => {
    const seen: Array<[string, string[], number[]]> = [];
    forEachStoredEntry(doc, (name, keys, value) => seen.push([name, keys, [...value.count]]));
    expect(seen).toEqual([
      ['click', ['c1', 'https://a.example/x'], [0, 0, 3]],
      ['view', ['', 'https://a.example/x'], [1, 2, 0]],
    ]);
    const page = new DecodedPage(doc);
    page.load('uniques', false, doc, () => 0);
    expect(page.foldedState('uniques', 1)).toEqual(sketchOfHashes([9, 10]));
  });

  test('when columns are named, then none is a field of the page itself', () => {
    const own = ['_id', 'g', 'o', 'f', 'p', 'x', 'over', 'k'];
    const columns = AGGREGATE_NAMES.flatMap((name) => [
      aggregateOf(name).column,
      deviceColumn(aggregateOf(name).column),
    ]);
    expect(columns.filter((c) => own.includes(c))).toEqual([]);
    expect(new Set(columns).size).toBe(columns.length);
  });

  test('when a stored page is damaged, then reading it is refused, never a loop or a huge allocation', () => {
    const damaged = { ...doc, k: new Binary(Buffer.from('05ffffffffff0f', 'hex')) };
    expect(() => new DecodedPage(damaged)).toThrow(/stored/);
    const truncated = { ...doc, n: new Binary(Buffer.from(hex(doc.n).slice(0, 4), 'hex')) };
    expect(() => new DecodedPage(truncated).load('count', true, truncated, () => 0)).toThrow(/stored/);
  });
});

describe('a visitor-sample column read for some entries', () => {
  const frequency = aggregateOf('frequency');
  const sampleOf = (visitors: number[]) =>
    visitors.reduce((s, v) => frequency.add(s, { visitor: v, country: 'DE' } as never), frequency.empty());
  const samples = [sampleOf([1]), sampleOf([2, 3]), sampleOf([4, 5, 6])];
  const entries: CellEntry[] = samples.map((sample, i) => ({
    name: 'impression',
    keys: ['', `https://a.example/${i}`],
    value: cell((v) => {
      v.count[0] = i + 1;
      v.frequency[0] = sample as CellValue['frequency'][0];
    }),
  }));
  const doc = writePages('1:0@g', '7001', pages, entries)[0]!;
  const only =
    (...kept: number[]) =>
    (i: number) =>
      kept.includes(i);
  // a sample's visitors and counts (its arrays may hold room to grow)
  const view = (s: unknown) => {
    const sample = s as { size: number; hashes: Float64Array; counts: Uint32Array } | undefined;
    return (
      sample && {
        hashes: [...sample.hashes.subarray(0, sample.size)],
        counts: [...sample.counts.subarray(0, sample.size)],
      }
    );
  };

  test('when a report loads the entries its filters keep, then only those are decoded, and a later report for others finds every entry decoded before still there', () => {
    const page = new DecodedPage(doc);
    page.load('frequency', false, doc, () => 0, only(0));
    expect(page.has('frequency', false, only(0))).toBe(true);
    expect(page.has('frequency', false, only(1))).toBe(false);
    expect(page.has('frequency', false)).toBe(false);
    expect(view(page.foldedState('frequency', 0))).toEqual(view(samples[0]));
    expect(page.foldedState('frequency', 1)).toBeUndefined();
    const first = page.foldedStates('frequency');

    page.load('frequency', false, doc, () => 0, only(2));
    expect(page.foldedState('frequency', 0)).toBe(first[0]);
    expect(view(page.foldedState('frequency', 2))).toEqual(view(samples[2]));
    expect(page.foldedState('frequency', 1)).toBeUndefined();
    // the array an earlier report holds is never changed
    expect(first[2]).toBeUndefined();

    page.load('frequency', false, doc, () => 0);
    expect(page.has('frequency', false)).toBe(true);
    expect(samples.map((_, i) => view(page.foldedState('frequency', i)))).toEqual(samples.map(view));
  });

  test('when an entry a report does not keep is damaged, then its report still reads the others, and a report that keeps it is refused', () => {
    const full = new DecodedPage(doc);
    full.load('frequency', false, doc, () => 0);
    // the last entry's sample cut short: its blob's length still frames it, its contents do not decode
    const bytes = Buffer.from((doc.r as Binary).buffer.subarray(0, (doc.r as Binary).position));
    const damagedDoc = { ...doc, r: new Binary(bytes) };
    const sampleBytes = (damagedDoc.r as Binary).buffer;
    sampleBytes[sampleBytes.length - 1] = 0xff;
    sampleBytes[sampleBytes.length - 2] = 0xff;
    const page = new DecodedPage(damagedDoc);
    page.load('frequency', false, damagedDoc, () => 0, only(0, 1));
    expect([0, 1].map((i) => view(page.foldedState('frequency', i)))).toEqual(samples.slice(0, 2).map(view));
    expect(() => page.load('frequency', false, damagedDoc, () => 0, only(2))).toThrow();
  });
});

describe('a page whose document was replaced after its keys were read', () => {
  test('when a later read of more columns finds them missing, then the page is damaged, never a page of empty states', () => {
    const doc = writePages('1:0@g', '7001', pages, ENTRIES)[0]!;
    const page = new DecodedPage(doc);
    page.load('count', false, doc, () => 0);
    // the stored document replaced since (by one of another format): the projection of the next columns holds none
    const replaced = { _id: doc._id, g: doc.g, o: doc.o, f: doc.f, p: doc.p, cells: [] };
    for (const name of ['sums', 'quantiles', 'uniques', 'latest'] as const)
      expect(() => page.load(name, false, replaced, () => 0)).toThrow(/lacks its column/);
  });
});
