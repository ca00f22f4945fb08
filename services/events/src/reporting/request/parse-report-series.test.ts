import { ValidationError } from '@cm/platform';
import { parseReportRequest } from './parse-report-request';

const limits = { maxRangeDays: 400, maxBuckets: 1000 };
const iso = (d?: Date) => d?.toISOString();

function errorsOf(body: unknown): Array<{ field: string; message: string }> {
  try {
    parseReportRequest(body, limits);
  } catch (err) {
    if (err instanceof ValidationError) return err.details ?? [];
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('parseReportRequest: series, time zones, top-N', () => {
  test('when date-only bounds come with a time zone, then they cover those days in that zone; date-times stay UTC', () => {
    const q = parseReportRequest(
      { owner_id: '1', created__gte: '2026-10-01', created__lte: '2026-10-31', timezone: 'Asia/Kolkata' },
      limits,
    );
    expect(iso(q.range.from)).toBe('2026-09-30T18:30:00.000Z');
    expect(iso(q.range.to)).toBe('2026-10-31T18:29:59.999Z');
    const t = parseReportRequest(
      { owner_id: '1', created__gte: '2026-10-01 00:00:00', timezone: 'Asia/Kolkata' },
      limits,
    );
    expect(iso(t.range.from)).toBe('2026-10-01T00:00:00.000Z');
  });

  test('when an interval is asked, then the row times are the zone buckets clipped to the range', () => {
    const q = parseReportRequest(
      {
        owner_id: '1',
        created__gte: '2026-10-24',
        created__lte: '2026-10-26',
        interval: 'day',
        timezone: 'Europe/Berlin',
      },
      limits,
    );
    expect(q.series!.map((b) => [iso(new Date(b.time)), (b.end - b.start) / 3_600_000])).toEqual([
      ['2026-10-23T22:00:00.000Z', 24],
      ['2026-10-24T22:00:00.000Z', 25],
      ['2026-10-25T23:00:00.000Z', 24],
    ]);
    expect(q.fillZeros).toBe(false);
  });

  test('when limit is given alone, then the order is value descending; order_by name is ascending unless told', () => {
    expect(parseReportRequest({ owner_id: '1', limit: 5 }, limits).orderBy).toEqual({
      field: 'value',
      direction: 'desc',
    });
    expect(parseReportRequest({ owner_id: '1', order_by: 'name' }, limits).orderBy).toEqual({
      field: 'name',
      direction: 'asc',
    });
    expect(parseReportRequest({ owner_id: '1', order: 'asc' }, limits).orderBy).toEqual({
      field: 'value',
      direction: 'asc',
    });
  });

  test.each([
    [{ interval: 'minute' }, 'interval'],
    [{ interval: 3 }, 'interval'],
    [{ interval: { $gt: '' } }, 'interval'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: '+05:30' }, 'timezone'],
    [{ timezone: 'x'.repeat(65) }, 'timezone'],
    [{ timezone: { $ne: null } }, 'timezone'],
    [{ timezone: ['UTC'] }, 'timezone'],
    [{ fill_zeros: 'true' }, 'fill_zeros'],
    [{ fill_zeros: 1 }, 'fill_zeros'],
    [{ fill_zeros: { $ne: false } }, 'fill_zeros'],
    [{ limit: 0 }, 'limit'],
    [{ limit: -1 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ limit: '5' }, 'limit'],
    [{ limit: 100_001 }, 'limit'],
    [{ limit: { $gt: 0 } }, 'limit'],
    [{ order_by: 'created' }, 'order_by'],
    [{ order_by: { $natural: 1 } }, 'order_by'],
    [{ order: 'up' }, 'order'],
  ])('when %j is sent, then it is a 400 naming %s', (extra, field) => {
    expect(
      errorsOf({ owner_id: '1', created__gte: '2026-10-01', created__lte: '2026-10-02', ...extra }).map((e) => e.field),
    ).toContain(field);
  });

  test('when an interval lacks a bound, has more buckets than allowed, or fill_zeros lacks an interval, then the 400 says so', () => {
    expect(errorsOf({ owner_id: '1', created__gte: '2026-10-01', interval: 'day' })).toEqual([
      { field: 'created__lte', message: 'is required with interval' },
    ]);
    expect(errorsOf({ owner_id: '1', created__lte: '2026-10-01', interval: 'day' })[0]!.field).toBe('created__gte');
    const tooMany = errorsOf({
      owner_id: '1',
      created__gte: '2026-01-01',
      created__lte: '2026-03-01',
      interval: 'hour',
    });
    expect(tooMany[0]).toEqual({
      field: 'interval',
      message: 'the range has more than 1000 hour buckets; use a longer interval or a shorter range',
    });
    expect(errorsOf({ owner_id: '1', fill_zeros: true })).toEqual([{ field: 'fill_zeros', message: 'needs interval' }]);
  });
});
