import { mapLimit } from './map-limit';

describe('mapLimit', () => {
  test('when mapping, then at most `limit` calls run at once and results keep input order', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      // the scenario: calls of different lengths (1-5 ms) finish out of input order
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });

  test('when a call fails, then the whole map rejects', async () => {
    await expect(
      mapLimit([1, 2], 4, async (n) => {
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
  });

  test('when there are no items, then the result is empty', async () => {
    expect(await mapLimit([], 3, async (n) => n)).toEqual([]);
  });
});
