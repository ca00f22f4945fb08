import { nextBatchCount } from './group-commit-publisher';

describe('next group-commit batch', () => {
  test.each([
    ['nothing waits', [], 0, { maxEvents: 10, maxBytes: 1000 }, 10, 0],
    ['a lone event', [100], 0, { maxEvents: 10, maxBytes: 1000 }, 10, 1],
    ['a burst within both bounds', [100, 100, 100], 0, { maxEvents: 10, maxBytes: 1000 }, 10, 3],
    ['more events than the event bound', Array(25).fill(10), 0, { maxEvents: 10, maxBytes: 100_000 }, 10, 10],
    ['the rest after a full batch', Array(25).fill(10), 20, { maxEvents: 10, maxBytes: 100_000 }, 10, 5],
    // 10 (envelope) + 100 + 1 + 100 = 211 fits 211; a third would need 312
    ['exactly the byte bound', [100, 100, 100], 0, { maxEvents: 10, maxBytes: 211 }, 10, 2],
    ['one byte short of the byte bound', [100, 100, 100], 0, { maxEvents: 10, maxBytes: 210 }, 10, 1],
    ['a first event larger than the byte bound (never stuck)', [5000, 10], 0, { maxEvents: 10, maxBytes: 1000 }, 10, 1],
    [
      'a large event after small ones stays for the next message',
      [10, 10, 5000],
      0,
      { maxEvents: 10, maxBytes: 1000 },
      10,
      2,
    ],
  ])('when %s, then the next message takes the right count', (_what, sizes, start, limits, overhead, count) => {
    expect(
      nextBatchCount(
        sizes as number[],
        start as number,
        limits as { maxEvents: number; maxBytes: number },
        overhead as number,
      ),
    ).toBe(count);
  });
});
