import { seededHashes } from '../../test/support/seeded-hashes';
import { PositionIndex } from './position-index';

describe('positions of number keys', () => {
  it('when thousands of keys are added (packed keys, multiples of 2^32, 0, neighbours, visitor hashes), then each is found at its position and others are not', () => {
    const next = seededHashes(3);
    const keys = new Set<number>([0, 1, 2 ** 53 - 1]);
    for (let i = 0; i < 3000; i++) keys.add(i * 2 ** 32);
    for (let i = 0; i < 3000; i++) keys.add((i % 4) * 2 ** 42 + (i % 97) * 2 ** 21 + i);
    for (let i = 0; i < 3000; i++) keys.add(next());
    for (const index of [new PositionIndex(), new PositionIndex(keys.size)]) {
      const expected = new Map<number, number>();
      for (const key of keys) {
        expect(index.get(key)).toBeUndefined();
        expected.set(key, index.add(key));
      }
      expect(index.size).toBe(keys.size);
      expect([...expected.values()]).toEqual([...keys].map((_, i) => i));
      for (const [key, position] of expected) expect(index.get(key)).toBe(position);
      for (const missing of [3, 2 ** 32 + 1, 2 ** 52 + 7])
        if (!keys.has(missing)) expect(index.get(missing)).toBeUndefined();
    }
  });
});
