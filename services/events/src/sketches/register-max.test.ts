import { maxRegistersInto } from './register-max';

describe('maxRegistersInto', () => {
  test('when every pair of register values 0..39 meets, in both orders and at every byte of a word, then each register becomes the larger one', () => {
    const values = 40;
    const a = new Uint8Array(values * values * 4);
    const b = new Uint8Array(a.length);
    for (let x = 0, i = 0; x < values; x++) {
      for (let y = 0; y < values; y++, i += 4) {
        // the pair at byte 0..3 in turn, next to neighbours that differ the other way
        for (let k = 0; k < 4; k++) {
          a[i + k] = k % 2 === 0 ? x : y;
          b[i + k] = k % 2 === 0 ? y : x;
        }
      }
    }
    const expected = a.map((v, i) => Math.max(v, b[i]!));
    const aligned = a.slice();
    maxRegistersInto(aligned, b);
    expect(Buffer.compare(aligned, expected)).toBe(0);

    // a view that does not start on a word boundary takes the byte loop and agrees
    const backing = new Uint8Array(a.length + 1);
    backing.set(a, 1);
    const unaligned = backing.subarray(1);
    maxRegistersInto(unaligned, b);
    expect(Buffer.compare(unaligned, expected)).toBe(0);
  });
});
