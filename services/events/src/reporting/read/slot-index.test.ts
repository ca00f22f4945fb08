import { seededHashes } from '../../../test/support/seeded-hashes';
import { SlotIndex } from './slot-index';

describe('group slots by packed number key', () => {
  it('when thousands of keys are added (packed keys, multiples of 2^32, 0, neighbours), then each is found with its value and others are not', () => {
    const next = seededHashes(3);
    const keys = new Set<number>([0, 1, 2 ** 53 - 1]);
    for (let i = 0; i < 3000; i++) keys.add(i * 2 ** 32);
    for (let i = 0; i < 3000; i++) keys.add((i % 4) * 2 ** 42 + (i % 97) * 2 ** 21 + i);
    for (let i = 0; i < 3000; i++) keys.add(next());
    const index = new SlotIndex<string>();
    const expected = new Map<number, string>();
    for (const key of keys) {
      expect(index.get(key)).toBeUndefined();
      index.add(key, `v${key}`);
      expected.set(key, `v${key}`);
    }
    expect(index.size).toBe(keys.size);
    for (const [key, value] of expected) expect(index.get(key)).toBe(value);
    for (const missing of [3, 2 ** 32 + 1, 2 ** 52 + 7])
      if (!keys.has(missing)) expect(index.get(missing)).toBeUndefined();
  });
});
