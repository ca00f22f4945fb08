import { rawBucketReads } from './raw-bucket-reads';

const T = (s: string) => Date.parse(s);
const existing = new Set(['events_20261001', 'events_20261002', 'events_20261003']);

describe('rawBucketReads', () => {
  test('when a raw step spans midnights, then each existing day bucket is read with only the bounds it needs', () => {
    const reads = rawBucketReads(
      [{ from: T('2026-09-30T22:00:00Z'), to: T('2026-10-03T01:00:00Z') }],
      'events',
      existing,
    );
    expect(reads.map((r) => [r.bucket, r.created.map((c) => [c.gte?.toISOString(), c.lte?.toISOString()])])).toEqual([
      ['events_20261001', []],
      ['events_20261002', []],
      ['events_20261003', [['2026-10-03T00:00:00.000Z', '2026-10-03T00:59:59.999Z']]],
    ]);
  });

  test('when several raw parts fall in one bucket and row time, then they are one read with several ranges; other row times stay apart', () => {
    const reads = rawBucketReads(
      [
        { from: T('2026-10-02T03:00:00Z'), to: T('2026-10-02T04:00:00Z'), time: 1 },
        { from: T('2026-10-02T07:00:00Z'), to: T('2026-10-02T07:30:00Z'), time: 1 },
        { from: T('2026-10-02T07:30:00Z'), to: T('2026-10-02T08:00:00Z'), time: 2 },
      ],
      'events',
      existing,
    );
    expect(reads).toHaveLength(2);
    expect(reads[0]!.created).toHaveLength(2);
    expect(reads[1]!.time).toBe(2);
  });
});
