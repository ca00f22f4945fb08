import { seededHashes } from '../../test/support/seeded-hashes';
import { ByteReader, ByteWriter, StoredFormatError } from '../metrics/byte-codec';
import { KEYS_LAYOUT, readKeys, writeKeys } from './page-keys';

/** Entries sorted by name, then keys, as a page holds them. */
function entries(n: number, dims: number, names: number, strings: number, seed = 1) {
  const next = seededHashes(seed);
  const rows = Array.from({ length: n }, () => [
    next() % names,
    ...Array.from({ length: dims }, () => next() % strings),
  ]);
  rows.sort((a, b) => {
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
    return 0;
  });
  return {
    names: Array.from({ length: names }, (_, i) => `name${String(i).padStart(4, '0')}`),
    strings: Array.from(
      { length: strings },
      (_, i) => `https://a.example/p/${String(i).padStart(6, '0')}?utm_source=x`,
    ),
    nameOf: Uint32Array.from(rows, (r) => r[0]!),
    keyOf: Uint32Array.from(rows.flatMap((r) => r.slice(1))),
    mask: Uint8Array.from(rows, () => 1 + (next() % 7)),
  };
}

function roundTrip(n: number, dims: number, names: number, strings: number) {
  const e = entries(n, dims, names, strings);
  const w = new ByteWriter();
  writeKeys(w, dims, e.names, e.strings, n, e.nameOf, e.keyOf, e.mask);
  const bytes = w.bytes();
  const r = new ByteReader(bytes);
  const back = readKeys(r);
  expect(r.done).toBe(true);
  expect(back).toEqual({
    dims,
    names: e.names,
    strings: e.strings,
    count: n,
    nameOf: e.nameOf,
    keyOf: e.keyOf,
    mask: e.mask,
  });
  return bytes;
}

describe('page keys as runs (page format 6)', () => {
  test.each([
    ['no entries', 0, 2, 0, 0],
    ['one entry', 1, 2, 1, 1],
    ['an odd count', 7, 1, 2, 5],
    ['no dimensions (totals)', 40, 0, 40, 0],
    ['four dimensions', 500, 4, 3, 50],
    ['thousands of strings', 4097, 2, 5, 20_000],
  ])('when %s are written, then they read back the same', (_what, n, dims, names, strings) => {
    const bytes = roundTrip(n, dims, names, strings);
    expect(bytes[0]).toBe(KEYS_LAYOUT + dims);
  });

  test('when a page holds many entries of few names, then the names take a run each, not a byte an entry', () => {
    const n = 3000;
    const e = entries(n, 2, 3, 3000);
    const w = new ByteWriter();
    writeKeys(w, 2, e.names, e.strings, n, e.nameOf, e.keyOf, e.mask);
    const tables = new ByteWriter();
    writeKeys(tables, 2, e.names, e.strings, 0, [], [], []);
    // per entry: its two key indexes (the second as a difference: mostly one byte) and half a byte of mask
    expect(w.length - tables.length).toBeLessThan(n * 3.6);
  });

  /** The first bytes up to the entry count: `dims`, the differences flags, names ["a"], `strings` strings. */
  const head = (dims: number, deltas: number, strings: number) => [
    KEYS_LAYOUT + dims,
    deltas,
    ...[1, 0, 1, 0x61],
    ...[strings, ...(strings > 0 ? [0, 1, 0x62] : [])],
  ];

  test.each([
    ['a dimension count past 16', [KEYS_LAYOUT + 17, 0, 0, 0, 0], /dimensions/],
    ['a difference flag past the dimensions', [KEYS_LAYOUT + 1, 0b10, 0, 0, 0], /damaged/],
    ['a run of no entries', [...head(0, 0, 0), 1, 1, 0, 0, 1], /damaged/],
    ['runs longer than the entries', [...head(0, 0, 0), 1, 1, 0, 2, 1], /damaged/],
    ['too few runs for the entries', [...head(0, 0, 0), 2, 1, 0, 1, 0x11], /damaged/],
    ['a run of an unknown name', [...head(0, 0, 0), 1, 1, 1, 1, 1], /unknown name/],
    ['a device mask of none', [...head(0, 0, 0), 1, 1, 0, 1, 0], /no devices/],
    ['a mask in the unused half byte', [...head(0, 0, 0), 1, 1, 0, 1, 0x11], /no devices/],
    ['a key past the strings', [...head(1, 0, 1), 1, 1, 0, 1, 1, 1], /unknown key/],
    ['a key difference below zero', [...head(1, 1, 1), 1, 1, 0, 1, 1, 1], /unknown key/],
    ['bytes cut short', [...head(0, 0, 0), 1, 1, 0, 1], /ends early/],
    ['a count larger than its bytes', [...head(0, 0, 0), 100, 1, 0, 100], /count larger/],
  ])('when stored keys have %s, then reading them is damage, not a crash', (_what, bytes, message) => {
    expect(() => readKeys(new ByteReader(Uint8Array.from(bytes)))).toThrow(StoredFormatError);
    expect(() => readKeys(new ByteReader(Uint8Array.from(bytes)))).toThrow(message);
  });

  test('when random bytes are read as keys, then each reads or is damage, never anything else', () => {
    const next = seededHashes(5);
    for (let trial = 0; trial < 3000; trial++) {
      const bytes = Uint8Array.from([
        KEYS_LAYOUT + (next() % 3),
        ...Array.from({ length: next() % 30 }, () => next() % 8),
      ]);
      try {
        const keys = readKeys(new ByteReader(bytes));
        for (const m of keys.mask) expect(m >= 1 && m <= 7).toBe(true);
        for (const k of keys.keyOf) expect(k).toBeLessThan(keys.strings.length);
      } catch (err) {
        expect(err).toBeInstanceOf(StoredFormatError);
      }
    }
  });
});
