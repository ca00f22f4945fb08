import { seededHashes } from '../../test/support/seeded-hashes';
import { sketchOfHashes } from './distinct-sketch';
import { decodeSketch, encodeSketch, SketchFormatError } from './sketch-codec';
import { DISTINCT_SKETCH, EMPTY_SKETCH } from './sketch-model';

const random = (seed: number, n: number): number[] => Array.from({ length: n }, seededHashes(seed));
const bytesOf = (stored: string): Buffer => Buffer.from(stored.slice(3), 'base64url');

describe('stored sketch v1', () => {
  test('when nothing is stored, then 0, undefined and null read as empty and empty writes 0', () => {
    for (const stored of [0, undefined, null]) expect(decodeSketch(stored)).toBe(EMPTY_SKETCH);
    expect(encodeSketch(EMPTY_SKETCH)).toBe(0);
  });

  test('when a set is exact, then it is stored as 7-byte big-endian hashes in ascending order', () => {
    const stored = encodeSketch(sketchOfHashes([2 ** 52 - 1, 0x0102030405, 7])) as string;
    expect(stored.startsWith('e1:')).toBe(true);
    expect(bytesOf(stored).toString('hex')).toBe('00000000000007' + '00000102030405' + '0fffffffffffff');
  });

  test('when registers are few, then they are stored sparse (3 bytes each: index << 6 | value), else dense, whichever is smaller, and both stay bounded', () => {
    const sparse = encodeSketch(sketchOfHashes(random(1, DISTINCT_SKETCH.exactLimit + 1))) as string;
    expect(sparse.startsWith('s1:')).toBe(true);
    const entries = bytesOf(sparse);
    const first = (entries[0]! << 16) | (entries[1]! << 8) | entries[2]!;
    expect(first >>> 6).toBeLessThan(DISTINCT_SKETCH.registers);
    expect(first & 0x3f).toBeGreaterThan(0);
    expect(sparse.length).toBeLessThan(16_384);

    const dense = encodeSketch(sketchOfHashes(random(2, 1_000_000))) as string;
    expect(dense.startsWith('d1:')).toBe(true);
    expect(bytesOf(dense)).toHaveLength(12_288);
    expect(dense.length).toBe(3 + 16_384);

    const largestExact = encodeSketch(sketchOfHashes(random(3, DISTINCT_SKETCH.exactLimit))) as string;
    expect(largestExact.length).toBe(3 + Math.ceil((4096 * 7 * 4) / 3));
  });

  test('when the dense form is read, then the 6-bit registers come back in order', () => {
    const registers = new Uint8Array(DISTINCT_SKETCH.registers).map((_, i) => i % 40);
    const stored = encodeSketch({ kind: 'hll', registers }) as string;
    expect(stored.startsWith('d1:')).toBe(true);
    // 0, 1, 2, 3 packed: 000000 000001 000010 000011
    expect(bytesOf(stored).subarray(0, 3).toString('hex')).toBe('001083');
    expect(decodeSketch(stored)).toEqual({ kind: 'hll', registers });
  });

  test('when a stored form is unknown or damaged, then reading it throws instead of miscounting', () => {
    const exact = encodeSketch(sketchOfHashes([1, 2, 3])) as string;
    const dense = encodeSketch(sketchOfHashes(random(4, 100_000))) as string;
    const bad: unknown[] = [
      'x1:AAAA',
      'e2:' + exact.slice(3),
      '',
      1,
      {},
      exact.slice(0, -2),
      exact.slice(0, 10) + '*' + exact.slice(11),
      'e1:' + Buffer.from('0000000000000200000000000001', 'hex').toString('base64url'), // out of order
      'e1:' + Buffer.from('10000000000000', 'hex').toString('base64url'), // 2^52
      'e1:' + Buffer.alloc(7 * 4097).toString('base64url'),
      dense.slice(0, -4),
      'd1:' + Buffer.alloc(12_288, 0xff).toString('base64url'), // registers of 63
      's1:' + Buffer.from('000040', 'hex').toString('base64url'), // value 0
      's1:' + Buffer.from('00004100004100', 'hex').toString('base64url'),
      's1:' + Buffer.from('000041000001', 'hex').toString('base64url'), // descending
    ];
    for (const stored of bad) expect(() => decodeSketch(stored)).toThrow(SketchFormatError);
  });
});
