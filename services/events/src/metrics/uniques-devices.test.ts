import { emptySketch, mergeSketches, sketchOfHashes, type DistinctSketch } from '../sketches/distinct-sketch';
import type { PerDevice } from './aggregate';
import { ByteReader, ByteWriter, StoredFormatError } from './byte-codec';
import { uniquesAggregate } from './uniques-aggregate';

const { writeDevices, readDevices } = uniquesAggregate as Required<typeof uniquesAggregate>;

function union(states: PerDevice<DistinctSketch>): DistinctSketch {
  return states.reduce((a, b) => mergeSketches(a, b), emptySketch());
}

function roundTrip(
  states: PerDevice<DistinctSketch>,
  mask: number,
): { bytes: number; back: PerDevice<DistinctSketch> } {
  const folded = union(states);
  const w = new ByteWriter();
  writeDevices(w, states, mask, folded);
  const bytes = w.bytes();
  const r = new ByteReader(bytes);
  const back = readDevices(r, mask, folded) as PerDevice<DistinctSketch>;
  expect(r.done).toBe(true);
  return { bytes: bytes.length, back };
}

const hashes = (from: number, n: number, step = 7919) => Array.from({ length: n }, (_, i) => from + i * step);

describe("an entry's visitor devices, stored against its union", () => {
  it.each([
    ['desktop and mobile', 0b011, [hashes(10, 9), hashes(20_000, 4), emptySketch()]],
    [
      'mobile and tablet, a visitor on both',
      0b110,
      [emptySketch(), hashes(10, 5), [...hashes(10, 2), ...hashes(90_000, 3)]],
    ],
    ['all three, visitors on several', 0b111, [hashes(10, 11), hashes(17, 6, 3), hashes(10, 3, 15838)]],
    ['desktop and tablet, one visitor each', 0b101, [[5], emptySketch(), [6]]],
  ])('when the entry has %s, then every device set reads back equal', (_what, mask, sets) => {
    const states = (sets as Array<number[] | DistinctSketch>).map((s) =>
      Array.isArray(s) ? sketchOfHashes(s) : s,
    ) as unknown as PerDevice<DistinctSketch>;
    const { back } = roundTrip(states, mask as number);
    for (let d = 0; d < 3; d++) expect(back[d]).toEqual(states[d]);
  });

  it('when the entry has two devices, then a mark takes two bits (four visitors a byte)', () => {
    const states = [
      sketchOfHashes(hashes(10, 400)),
      sketchOfHashes(hashes(5, 400)),
      emptySketch(),
    ] as PerDevice<DistinctSketch>;
    // one kind byte, 800 visitors of two bits
    expect(roundTrip(states, 0b011).bytes).toBe(1 + 200);
  });

  it('when a page holds the four-bit marks written before (kind 0), then they still read back', () => {
    const states = [sketchOfHashes([3, 9]), sketchOfHashes([9]), sketchOfHashes([12])] as PerDevice<DistinctSketch>;
    const folded = union(states); // 3, 9, 12
    const bytes = Uint8Array.from([0, 0b0011_0001, 0b0100]);
    const back = readDevices(new ByteReader(bytes), 0b111, folded);
    for (let d = 0; d < 3; d++) expect(back[d]).toEqual(states[d]);
  });

  it.each([
    ['a visitor on no device', Uint8Array.from([2, 0b0000_0111])],
    ['bits set past the last mark', Uint8Array.from([2, 0b1100_0111])],
    ['marks that end early', Uint8Array.from([2])],
    ['an unknown kind', Uint8Array.from([3, 0xff])],
  ])('when the stored marks hold %s, then the page is damage', (_what, bytes) => {
    const folded = sketchOfHashes([3, 9, 12]);
    expect(() => readDevices(new ByteReader(bytes), 0b011, folded)).toThrow(StoredFormatError);
  });
});
