import type { Document } from 'mongodb';
import { aggregateOf, emptyCellValue, type AggregateName, type CellValue } from '../metrics/registry';
import { FamilyTable } from './cell-table';
import { mergeChildPages } from './child-pages';
import { FAMILIES, type Family } from './families';
import { addHourRow, readHourRow } from './hour-pipeline';
import { compare, writePages, type CellEntry } from './page-writer';
import type { CellPageDocument } from './page-layout';

const OWNER = '100000000000001';
const DEVICES = ['desktop', 'tablet', 'mobile'];
const URLS = [
  'https://shop.example.com/sale?utm_source=news&utm_medium=email&gclid=Cj0KCQiA',
  'https://bücher.example/kinder#top',
  'https://WWW.EXAMPLE.ORG/Landing?fbclid=IwAR3x&ref=',
  'https://shop.example.com/sale?utm_source=news&utm_medium=email&gclid=Cj0KCQiB',
];

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/** What rows hold besides the defaults: event ids as ingest makes them (UUIDv7 of their time), other urls or names. */
interface RowOptions {
  v7?: boolean;
  urls?: readonly string[];
  names?: readonly string[];
  contentIds?: readonly string[];
}

/** A UUIDv7 of `created` (its first 48 bits), with `suffix` as its last 12 hex digits. */
function v7Id(created: Date, suffix: string): string {
  const hex = created.getTime().toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7a1b-8c2d-${suffix}`;
}

/** Hour-pipeline rows as the `$group` returns them: one device, a visitor or none, measures on some. */
function hourRows(count: number, seed: number, options: RowOptions = {}): Document[] {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const created = new Date(Date.UTC(2026, 10, 2, 9, 0, 0) + i * 1000);
    const id: Document = {
      o: OWNER,
      h: 9,
      n: pick(options.names ?? ['impression', 'click', 'view']),
      d: pick(DEVICES),
      content_id: pick(options.contentIds ?? ['', 'hero-banner', 'c-42']),
      url: pick(options.urls ?? URLS),
      country: pick(['', 'DE', 'FR', 'US']),
      utm_source: pick(['', 'news', 'x.com']),
      utm_medium: pick(['', 'email']),
      utm_campaign: pick(['', 'spring', '$where']),
      referrer: pick(['', 'https://www.google.com/']),
    };
    if (next() < 0.8) {
      id.v = Math.floor(next() * 40) * 1_000_003;
      id.fc = id.country;
    }
    if (next() < 0.5) id.me = Math.floor(next() * 90_000);
    if (next() < 0.3) id.mv = Math.floor(next() * 500);
    const events = 1 + Math.floor(next() * 3);
    const suffix = String(seed * 100_000 + i).padStart(12, '0');
    return {
      _id: id,
      n: events,
      fe: events,
      mc: events,
      l: {
        c: created,
        i: options.v7 ? v7Id(created, suffix) : `01900000-0000-7000-8000-${suffix}`,
        m: next() < 0.5 ? { campaign: 'spring' } : {},
      },
    };
  });
}

/**
 * The cells as they were built before states were made on first use: every state of every
 * device made up front, each row merged into its device's states with `mergeInto`.
 */
function referenceCells(rows: readonly Document[], family: Family): CellEntry[] {
  const cells = new Map<string, CellEntry>();
  for (const doc of rows) {
    const row = readHourRow(doc);
    const keys = family.dimensions.map((d) => row.dims[d]);
    const key = JSON.stringify([row.name, keys]);
    let entry = cells.get(key);
    if (!entry) cells.set(key, (entry = { name: row.name, keys, value: emptyCellValue() }));
    const value = entry.value as Record<AggregateName, unknown[]>;
    // each state made whole from the row (the table's rows may hold compact forms instead)
    for (const name of family.aggregates)
      value[name][row.device] = aggregateOf(name).mergeInto(value[name][row.device], aggregateOf(name).fromRow(doc));
  }
  // the pages' order: by name, then keys (code-unit order)
  const order = (e: CellEntry): string[] => [e.name, ...e.keys];
  return [...cells.values()].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return compare(x[i]!, y[i]!);
    return 0;
  });
}

function tablesOf(rows: readonly Document[]): Map<string, FamilyTable> {
  const tables = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)]));
  for (const doc of rows) addHourRow(tables, readHourRow(doc));
  return tables;
}

function pagesOf(g: string, tables: ReadonlyMap<string, FamilyTable>): CellPageDocument[] {
  return FAMILIES.flatMap((f) => writePages(g, OWNER, f, tables.get(f.id)!.sorted(), 600));
}

describe('FamilyTable', () => {
  it('when one row of one device is added, then only the states it has on that device are made', () => {
    const [doc] = hourRows(1, 3);
    doc!._id.d = 'tablet';
    delete doc!._id.me;
    delete doc!._id.mv;
    doc!._id.v = 77;
    const tables = tablesOf([doc!]);
    for (const family of FAMILIES) {
      const [entry] = tables.get(family.id)!.sorted();
      const value = entry!.value as Record<AggregateName, readonly unknown[]>;
      expect(value.count).toEqual([0, doc!.n, 0]);
      for (const name of ['sums', 'quantiles'] as const) {
        // no measures: one shared array of empty states, the same in every entry
        expect(value[name]).toBe((emptyCellValueOfTable(family) as Record<string, unknown>)[name]);
      }
      expect(value.latest[1] !== null).toBe(family.aggregates.includes('latest'));
      expect(value.frequency.every((s) => aggregateOf('frequency').isEmpty(s))).toBe(
        !family.aggregates.includes('frequency'),
      );
    }
  });

  it('when rows are merged with states made on first use, then the pages are byte for byte those of cells made whole', () => {
    const rows = hourRows(600, 11);
    const tables = tablesOf(rows);
    for (const family of FAMILIES) {
      const ours = writePages('g1', OWNER, family, tables.get(family.id)!.sorted(), 600);
      const reference = writePages('g1', OWNER, family, referenceCells(rows, family), 600);
      expect(ours.length).toBeGreaterThan(0);
      expect(ours).toEqual(reference);
    }
  });

  it('when most entries hold one event, as a flood of distinct urls does, then the pages are byte for byte those of cells made whole', () => {
    // a thousand distinct urls over 1,500 rows: most entries one row, some a second on its device or another
    const urls = Array.from(
      { length: 1000 },
      (_, i) => `https://sho.rt/${(1_000_000 + i * 7919).toString(36)}?utm_source=x`,
    );
    const rows = hourRows(1500, 17, { v7: true, urls });
    const tables = tablesOf(rows);
    expect(tables.get('p')!.size).toBeGreaterThan(700);
    for (const family of FAMILIES)
      expect(writePages('g1', OWNER, family, tables.get(family.id)!.sorted(), 20_000)).toEqual(
        writePages('g1', OWNER, family, referenceCells(rows, family), 20_000),
      );
  });

  it('when names and keys hold "\\0", "\\x01", empty strings and characters past the BMP, then each entry keeps them, in code-unit order', () => {
    const hostile = ['', '\0', '\0\0', '\0\x01', '\x01', 'a\0', 'a', 'a\0\0b', '\uFFFF', '😀', '\uD83D', 'ü', '$where'];
    const rows = hourRows(900, 23, { v7: true, urls: hostile, names: hostile, contentIds: hostile });
    const tables = tablesOf(rows);
    for (const family of FAMILIES) {
      const ours = tables.get(family.id)!.sorted();
      const reference = referenceCells(rows, family);
      expect(ours.map((e) => [e.name, e.keys])).toEqual(reference.map((e) => [e.name, e.keys]));
      expect(writePages('g1', OWNER, family, ours, 2_000)).toEqual(writePages('g1', OWNER, family, reference, 2_000));
    }
  });

  it('when two hours are merged from their pages in either order, then the day is the same as its rows built at once', () => {
    const first = hourRows(400, 5);
    const second = hourRows(400, 6);
    const together = pagesOf('g', tablesOf([...first, ...second]));
    for (const order of [
      [first, second],
      [second, first],
    ]) {
      const day = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)]));
      for (const rows of order) expect(mergeChildPages(pagesOf('g', tablesOf(rows)), day)).toEqual([]);
      expect(pagesOf('g', day)).toEqual(together);
    }
  });
});

/** A new entry's value in a table of `family`, before any event. */
function emptyCellValueOfTable(family: Family): CellValue {
  const table = new FamilyTable(family, 10);
  table.add('x', [...family.dimensions.map(() => '')], emptyCellValue());
  return table.sorted()[0]!.value;
}
