import { ByteReader, ByteWriter } from './byte-codec';
import { latestAggregate, type Latest } from './latest-aggregate';

// The stored latest event (page column `l`), pinned: the writer parses ids by hand (no regular
// expression or hex string per entry) and must store exactly what the layout says.
const BASE = Date.parse('2026-10-20T04:00:00Z');

/** The layout, written out: flag, time, id bytes, then the metadata's index in the column's table. */
function expected(s: Latest): string {
  const [created, id] = s;
  const varint = (v: number) => {
    const out: number[] = [];
    for (; v >= 0x80; v = Math.floor(v / 0x80)) out.push((v % 0x80) | 0x80);
    out.push(v);
    return Buffer.from(out).toString('hex');
  };
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);
  const time = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  if (uuid && created >= BASE && time === created)
    return `03${varint(created - BASE)}${id.slice(14).replace(/-/g, '')}00`;
  if (uuid) return `01${varint(created)}${id.replace(/-/g, '')}00`;
  return `02${varint(created)}${varint(Buffer.byteLength(id))}${Buffer.from(id).toString('hex')}00`;
}

const at = BASE + 1_234_567;
const v7 = `${at.toString(16).padStart(12, '0').slice(0, 8)}-${at.toString(16).padStart(12, '0').slice(8)}-7abc-9def-0123456789ab`;

describe('the stored latest event', () => {
  test.each<[string, Latest]>([
    ['a UUIDv7 of its own time', [at, v7, { campaign: 'spring' }]],
    ['a UUIDv7 of another time', [at + 1, v7, {}]],
    ['a UUIDv7 before the unit', [BASE - 5, '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', {}]],
    ['a UUIDv4', [at, '3f2504e0-4f89-41d3-9a0c-0305e82c3301', { a: 'b' }]],
    ['an upper-case UUID', [at, v7.toUpperCase(), {}]],
    ['a UUID without its dashes', [at, v7.replace(/-/g, ''), {}]],
    ['a UUID with a character past ASCII', [at, `${v7.slice(0, 35)}é`, {}]],
    ['an ObjectId', [at, '65f1c0ffee00112233445566', { 'a.b': '{"$gt":""}' }]],
    ['an id of 36 characters with dashes in other places', [at, `${'a'.repeat(9)}-${'b'.repeat(26)}`, {}]],
  ])('when %s is written, then its bytes are the layout and read back as written', (_label, state) => {
    const w = new ByteWriter(16, BASE);
    latestAggregate.write(w, state);
    expect(w.bytes().toString('hex')).toBe(expected(state));
    const r = new ByteReader(w.bytes());
    r.base = BASE;
    r.table = w.internedTable();
    expect(latestAggregate.read(r)).toEqual(state);
  });

  test('when one metadata object is written twice, then the column holds its JSON once', () => {
    const metadata = { campaign: 'spring', variant: 'b' };
    const w = new ByteWriter(16, BASE);
    latestAggregate.write(w, [at, v7, metadata]);
    latestAggregate.write(w, [at + 5, v7, metadata]);
    expect(w.internedTable()).toEqual([JSON.stringify(metadata)]);
  });
});
