import { selectBuckets } from './bucket-selection';

const existing = ['events_20261118', 'events_20261119', 'events_20261120', 'events_20261122', 'api_keys', 'other_20261119', 'events_20261340', 'events_x'];
const at = (iso: string) => new Date(iso);
const select = (range: { from?: Date; to?: Date }, maxRangeDays = 400) => selectBuckets({ prefix: 'events', existing, range, maxRangeDays });

describe('selectBuckets', () => {
  test('when the range is open, then every existing bucket of the prefix is read, oldest first, with no bounds', () => {
    expect(select({})).toEqual([{ name: 'events_20261118' }, { name: 'events_20261119' }, { name: 'events_20261120' }, { name: 'events_20261122' }]);
  });

  test('when the range lies inside one day, then only that bucket is read, with both bounds', () => {
    const from = at('2026-11-19T10:00:00.000Z');
    const to = at('2026-11-19T11:00:00.999Z');
    expect(select({ from, to })).toEqual([{ name: 'events_20261119', created: { gte: from, lte: to } }]);
  });

  test('when the range spans days, then inner days have no bounds and the edge days one each', () => {
    const from = at('2026-11-18T12:00:00.000Z');
    const to = at('2026-11-20T06:00:00.999Z');
    expect(select({ from, to })).toEqual([
      { name: 'events_20261118', created: { gte: from } },
      { name: 'events_20261119' },
      { name: 'events_20261120', created: { lte: to } },
    ]);
  });

  test('when the range covers whole days exactly, then no bounds are needed', () => {
    expect(select({ from: at('2026-11-19T00:00:00.000Z'), to: at('2026-11-20T23:59:59.999Z') })).toEqual([{ name: 'events_20261119' }, { name: 'events_20261120' }]);
  });

  test('when a day in the range has no bucket, then it is skipped (never queried)', () => {
    const names = select({ from: at('2026-11-20T00:00:00Z'), to: at('2026-11-23T23:59:59.999Z') }).map((b) => b.name);
    expect(names).toEqual(['events_20261120', 'events_20261122']);
  });

  test('when only one bound is given, then buckets on the open side are all read', () => {
    expect(select({ from: at('2026-11-20T00:00:00Z') }).map((b) => b.name)).toEqual(['events_20261120', 'events_20261122']);
    expect(select({ to: at('2026-11-18T23:59:59.999Z') }).map((b) => b.name)).toEqual(['events_20261118']);
  });

  test('when an open range finds more days than allowed, then only the newest days are read', () => {
    expect(select({}, 3).map((b) => b.name)).toEqual(['events_20261120', 'events_20261122']);
    expect(select({ to: at('2026-11-20T23:59:59.999Z') }, 2).map((b) => b.name)).toEqual(['events_20261119', 'events_20261120']);
  });

  test('when the range ends at the first millisecond of a day, then that bucket is read with an lte bound', () => {
    const to = at('2026-11-20T00:00:00.000Z');
    expect(select({ from: at('2026-11-19T12:00:00Z'), to }).at(-1)).toEqual({ name: 'events_20261120', created: { lte: to } });
  });

  test('when there are no buckets, then nothing is read', () => {
    expect(selectBuckets({ prefix: 'events', existing: ['api_keys'], range: {}, maxRangeDays: 10 })).toEqual([]);
  });
});
