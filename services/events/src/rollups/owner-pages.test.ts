import { Binary } from 'mongodb';
import { seededHashes } from '../../test/support/seeded-hashes';
import { StoredFormatError } from '../metrics/byte-codec';
import { emptyCellValue, type CellValue } from '../metrics/registry';
import { sketchOfHashes } from '../sketches/distinct-sketch';
import { DISTINCT_SKETCH } from '../sketches/sketch-model';
import { FamilyTable } from './cell-table';
import { mergeChildPages } from './child-pages';
import { FAMILIES } from './families';
import { ownerPages } from './owner-pages';
import { DecodedPage, forEachStoredEntry, visitorDictionary } from './page-reader';
import { writePages } from './page-writer';
import { VISITORS_COLUMN, type CellPageDocument } from './page-layout';

// Page format 5: an owner's exact visitor sets in a unit, in every family, are indexes into one
// visitor dictionary on its first totals page.
const G = '1:0@g';
const OWNER = '7001';
const LIMIT = DISTINCT_SKETCH.exactLimit;
const visitors = Array.from({ length: 3 * LIMIT }, seededHashes(5));

/** Keys of an entry in each family, from a visitor's number (a few urls, countries, campaigns). */
function keysOf(family: string, v: number): string[] {
  if (family === 'p') return [`c${v % 3}`, `https://shop.example/p/${v % 40}?utm_source=news&gclid=${v % 7}`];
  if (family === 'g') return [['DE', 'FR', 'US', ''][v % 4]!];
  if (family === 'c') return ['newsletter', 'email', `spring-${v % 5}`, v % 2 === 0 ? 'news.example' : ''];
  return [];
}

/**
 * One owner's tables: `n` visitors, each with an impression on device v % 3, and every fifth a
 * click too; one url gets every visitor (past the exact size when n > 4,096).
 */
function tables(n: number, maxCells = 100_000): Map<string, FamilyTable> {
  const out = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, maxCells)]));
  for (let v = 0; v < n; v++) {
    for (const name of v % 5 === 0 ? ['impression', 'click'] : ['impression']) {
      for (const family of FAMILIES) {
        const value = emptyCellValue();
        value.count[v % 3] = 1;
        value.uniques[v % 3] = sketchOfHashes([visitors[v]!]);
        out.get(family.id)!.add(name, keysOf(family.id, v), value);
        if (family.id === 'p') out.get(family.id)!.add(name, ['all', 'https://shop.example/'], value);
      }
    }
  }
  return out;
}

/** Every entry's visitor sets per device, by family, as stored pages read back. */
function readBack(docs: readonly CellPageDocument[], dictionary?: Float64Array): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const doc of docs) {
    const list = out.get(doc.f) ?? [];
    forEachStoredEntry(doc, (name, keys, value) => list.push([name, keys, [...value.uniques]]), dictionary);
    out.set(doc.f, list);
  }
  return out;
}

/** The same, from the tables themselves. */
function expected(byFamily: Map<string, FamilyTable>): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const [id, table] of byFamily)
    out.set(
      id,
      table.sorted().map((e) => [e.name, e.keys, (e.value as CellValue).uniques.map((s) => s)]),
    );
  return out;
}

const bytesOf = (docs: readonly CellPageDocument[], column: string) =>
  docs.reduce((n, d) => n + ((d[column] as Binary | undefined)?.position ?? 0), 0);

describe("an owner's pages with a visitor dictionary", () => {
  test.each([1, LIMIT, LIMIT + 1])(
    "when an owner has %i visitors, then every family's visitor sets read back the same through the dictionary on its first totals page",
    (n) => {
      const byFamily = tables(n);
      const docs = ownerPages(G, OWNER, byFamily);
      const totals = docs.find((d) => d.f === 't' && d.p === 0)!;
      const dictionary = visitorDictionary(totals)!;
      expect(dictionary.length).toBe(n);
      expect(docs.filter((d) => d[VISITORS_COLUMN] !== undefined)).toEqual([totals]);
      expect(readBack(docs, dictionary)).toEqual(expected(byFamily));
    },
  );

  test('when the pages are written with a dictionary, then their visitor sets take far fewer bytes than with hashes', () => {
    const byFamily = tables(2000);
    const docs = ownerPages(G, OWNER, byFamily);
    const format4 = [...byFamily.values()].flatMap((t) => writePages(G, OWNER, t.family, t.sorted(), undefined, 4));
    const indexed = bytesOf(docs, 'u') + bytesOf(docs, VISITORS_COLUMN);
    expect(indexed).toBeLessThan(0.6 * bytesOf(format4, 'u'));
    expect(readBack(format4)).toEqual(expected(byFamily));
  });

  test('when a page whose sets index the dictionary is read without it, then it is damage', () => {
    const docs = ownerPages(G, OWNER, tables(50));
    const p = docs.find((d) => d.f === 'p')!;
    expect(() => new DecodedPage(p).load('uniques', false, p, () => 0)).toThrow(StoredFormatError);
  });

  test('when the totals family is past its cap, then no page holds a dictionary and the sets keep their hashes', () => {
    const byFamily = tables(300);
    byFamily.get('t')!.overflow();
    const docs = ownerPages(G, OWNER, byFamily);
    expect(docs.some((d) => d[VISITORS_COLUMN] !== undefined)).toBe(false);
    const { t: _t, ...rest } = Object.fromEntries(expected(byFamily));
    expect(Object.fromEntries([...readBack(docs)].filter(([f]) => f !== 't'))).toEqual(rest);
  });

  test('when an owner has no visitors, then there is no dictionary', () => {
    const byFamily = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100)]));
    for (const table of byFamily.values()) {
      const value = emptyCellValue();
      value.count[0] = 2;
      table.add(
        'impression',
        table.family.dimensions.map(() => ''),
        value,
      );
    }
    const docs = ownerPages(G, OWNER, byFamily);
    expect(docs.some((d) => d[VISITORS_COLUMN] !== undefined)).toBe(false);
    expect(readBack(docs)).toEqual(expected(byFamily));
  });
});

describe('a parent merged from children with visitor dictionaries', () => {
  test('when two children are merged, then the tables hold their visitors, each child read through its own dictionary', () => {
    const children = [ownerPages('1:0@a', OWNER, tables(200)), ownerPages('1:3600000@b', OWNER, tables(120))].flat();
    const merged = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)]));
    expect(mergeChildPages(children, merged)).toEqual([]);
    expect(expected(merged)).toEqual(expected(tables(200)));
  });

  test("when a child's dictionary is damaged, then its totals page and the pages leaning on it are damaged, never merged wrong", () => {
    const docs = ownerPages(G, OWNER, tables(60));
    const totals = docs.find((d) => d.f === 't' && d.p === 0)!;
    const bytes = Buffer.from((totals[VISITORS_COLUMN] as Binary).buffer.subarray(0, 8));
    const damaged = docs.map((d) => (d === totals ? { ...d, [VISITORS_COLUMN]: new Binary(bytes) } : d));
    const out = mergeChildPages(damaged, new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)])));
    expect(out.map((d) => d.family).sort()).toEqual(['c', 'g', 'p', 't']);
  });
});
