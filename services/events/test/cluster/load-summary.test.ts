import { checkCounts, summarizeLoad, type PixelHit } from './load-summary';

const hit = (seq: number, startMs: number, endMs: number, status: number): PixelHit => ({
  seq,
  contentId: `c${seq}`,
  startMs,
  endMs,
  status,
});

describe('summarizeLoad', () => {
  test.each([
    [
      'no requests',
      [],
      { total: 0, ok: 0, okShare: 0, longestOutageMs: 0, longestOutageAtMs: -1, p99LatencyMs: 0, maxLatencyMs: 0 },
    ],
    [
      'only 200s',
      [hit(1, 0, 5, 200), hit(2, 10, 15, 200)],
      { total: 2, ok: 2, okShare: 1, longestOutageMs: 0, longestOutageAtMs: -1, maxLatencyMs: 5 },
    ],
    [
      'one 503',
      [hit(1, 0, 5, 200), hit(2, 10, 2010, 503), hit(3, 20, 25, 200)],
      { ok: 2, longestOutageMs: 2000, longestOutageAtMs: 10, p99LatencyMs: 2000, maxLatencyMs: 2000 },
    ],
    [
      'two runs, the later longer',
      [
        hit(1, 0, 100, 503),
        hit(2, 50, 60, 200),
        hit(3, 100, 900, 503),
        hit(4, 200, 2100, 0),
        hit(5, 300, 400, 503),
        hit(6, 2200, 2210, 200),
      ],
      { ok: 2, longestOutageMs: 2000, longestOutageAtMs: 100, byStatus: { '0': 1, '200': 2, '503': 3 } },
    ],
    [
      'hits given out of order',
      [hit(2, 10, 2010, 503), hit(1, 0, 5, 200)],
      { ok: 1, okShare: 0.5, longestOutageMs: 2000 },
    ],
  ])('when the run holds %s, then the summary says so', (_what, hits, expected) => {
    expect(summarizeLoad(hits as PixelHit[])).toMatchObject(expected);
  });
});

describe('checkCounts', () => {
  test.each([
    [
      'every acknowledged id counted once',
      ['a', 'b'],
      [
        ['a', 1],
        ['b', 1],
        ['x', 1],
      ],
      { lost: [], duplicated: [] },
    ],
    ['an acknowledged id missing', ['a', 'b'], [['a', 1]], { lost: ['b'], duplicated: [] }],
    ['an id counted twice', ['a'], [['a', 2]], { lost: [], duplicated: ['a'] }],
    [
      'an unacknowledged id counted twice',
      ['a'],
      [
        ['a', 1],
        ['z', 3],
      ],
      { lost: [], duplicated: ['z'] },
    ],
  ])('when %s, then lost and duplicated are listed', (_what, acked, counted, expected) => {
    expect(checkCounts(acked as string[], new Map(counted as [string, number][]))).toEqual(expected);
  });
});
