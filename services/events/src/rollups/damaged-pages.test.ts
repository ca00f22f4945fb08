import { Binary } from 'mongodb';
import { StoredFormatError } from '../metrics/byte-codec';
import { AGGREGATE_NAMES, aggregateOf, emptyCellValue, type CellValue } from '../metrics/registry';
import type { RawEvent } from '../metrics/aggregate';
import { prng } from '../../test/support/rollup-fixture';
import { checkPageFields, damagedPageOf, decodeOrDamaged } from './damaged-pages';
import { FAMILIES } from './families';
import { pageId, type CellPageDocument } from './page-layout';
import { DecodedPage, forEachStoredEntry } from './page-reader';
import { writePages, type CellEntry } from './page-writer';

const G = '4:1792454400000@mhx-0123456789ab';
const pagesFamily = FAMILIES.find((f) => f.id === 'p')!;

/** Entries as the builder writes them: every aggregate fed with events on random devices, one entry past the exact sketch size. */
function entries(random: () => number): CellEntry[] {
  const out: CellEntry[] = [];
  for (let e = 0; e < 24; e++) {
    const value = emptyCellValue() as unknown as Record<string, unknown[]>;
    const events = e === 3 ? 2500 : 1 + Math.floor(random() * 30);
    for (let n = 0; n < events; n++) {
      const device = Math.floor(random() * 3);
      const event: RawEvent = {
        _id: `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`,
        created: new Date(1_792_454_400_000 + n * 1000),
        metadata: { campaign: ['spring', 'autumn'][n % 2]! },
        visitor: Math.floor(random() * 2 ** 52),
        ...(random() < 0.5 ? { country: 'DE' } : {}),
        ...(random() < 0.5 ? { measures: { engaged_ms: Math.floor(random() * 90_000), value: n } } : {}),
      };
      for (const name of AGGREGATE_NAMES) value[name]![device] = aggregateOf(name).add(value[name]![device], event);
    }
    out.push({
      name: ['click', 'view'][e % 2]!,
      keys: [`c${e}`, `https://a.example/${e}?utm_source=x#top`],
      value: value as unknown as CellValue,
    });
  }
  return out.sort((a, b) => (`${a.name}|${a.keys.join('|')}` < `${b.name}|${b.keys.join('|')}` ? -1 : 1));
}

/** Reads a page as a report and a build would: keys, then every column (devices too). */
function readAll(doc: CellPageDocument): void {
  const page = new DecodedPage(doc);
  for (const name of AGGREGATE_NAMES) page.load(name, true, doc, () => 0);
  forEachStoredEntry(doc, () => undefined);
}

const doc = writePages(G, '7001', pagesFamily, entries(prng(11)))[0]!;
const columns = Object.keys(doc).filter((k) => doc[k] instanceof Binary);

describe('a stored page that does not decode', () => {
  test('when the page is whole, then every column decodes', () => {
    expect(() => readAll(doc)).not.toThrow();
    expect(columns).toEqual(expect.arrayContaining(['k', 'n', 'u', 'l', 'q', 'r', 's']));
  });

  test.each(['truncated', 'leading byte', 'noise'])(
    'when a column is %s, then reading it fails with StoredFormatError and nothing else',
    (damage) => {
      const random = prng(12);
      let refused = 0;
      for (let i = 0; i < 400; i++) {
        const column = columns[i % columns.length]!;
        const bytes = Buffer.from((doc[column] as Binary).buffer.subarray(0, (doc[column] as Binary).position));
        let damaged: Buffer;
        if (damage === 'truncated') damaged = bytes.subarray(0, Math.floor(random() * bytes.length));
        else if (damage === 'leading byte') {
          damaged = Buffer.from(bytes);
          damaged[0] = (damaged[0]! + 1 + Math.floor(random() * 255)) & 0xff;
        } else
          damaged = Buffer.from(
            Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)),
          );
        try {
          readAll({ ...doc, [column]: new Binary(damaged) });
        } catch (err) {
          expect(err).toBeInstanceOf(StoredFormatError);
          refused++;
        }
      }
      // cut short or with another leading byte, a column never decodes; noise almost never does
      if (damage === 'noise') expect(refused).toBeGreaterThan(390);
      else expect(refused).toBe(400);
    },
  );

  test.each([
    ['another id', { _id: pageId(G, '7002', 'p', 0) }],
    ['another generation', { g: '4:0@x' }],
    ['another owner', { o: '7002' }],
    ['another family', { f: 't' }],
    ['another page number', { p: 1 }],
    ['no page number', { p: undefined }],
    ['an owner of another type', { o: 7001 }],
    ['a page count of a billion', { x: 1e9 }],
    ['a page count that is no number', { x: '3' }],
    ['no keys (a document of another format)', { k: undefined }],
    ['keys as text', { k: 'AgIABWNsaWNr' }],
  ] as Array<[string, Partial<CellPageDocument>]>)(
    'when the page holds %s, then it is refused as damaged',
    (_label, change) => {
      const foreign = { ...doc, ...change } as CellPageDocument;
      expect(() => readAll(foreign)).toThrow(StoredFormatError);
    },
  );

  test('when a decode fails, then the damaged page is named by the id asked for, never by what it holds', () => {
    const id = pageId(G, '7001', 'p', 2);
    expect(decodeOrDamaged(id, () => checkPageFields({ ...doc, _id: id }))).toEqual({
      g: G,
      owner: '7001',
      family: 'p',
      page: 2,
    });
    expect(damagedPageOf(id)).toEqual({ g: G, owner: '7001', family: 'p', page: 2 });
    expect(decodeOrDamaged(id, () => undefined)).toBeUndefined();
    expect(() =>
      decodeOrDamaged(id, () => {
        throw new TypeError('a defect');
      }),
    ).toThrow(TypeError);
  });
});
