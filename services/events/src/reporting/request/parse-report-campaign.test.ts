import { ValidationError } from '@cm/platform';
import { normaliseReport } from './parse-report-request';
import { validateReportBody } from './report-schema';
import type { CampaignScope } from './campaign-scope';

// A campaign in New York (-04:00 in October): its flight is 2026-10-05T04:00Z .. 2026-10-08T03:59:59.999Z.
const CAMPAIGN: CampaignScope = {
  urls: ['https://news.example/guide', 'https://news.example/offer?id=7'],
  start_date: '2026-10-05',
  end_date: '2026-10-07',
  timezone: 'America/New_York',
};
const limits = { maxRangeDays: 31 };
const parse = (body: Record<string, unknown>, campaign: CampaignScope = CAMPAIGN, l = limits) =>
  normaliseReport(validateReportBody({ owner_id: '42', campaign: 'spring', ...body }), l, campaign);
const iso = (d: Date | undefined) => d?.toISOString();

function fieldsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return (err.details ?? []).map((d) => d.field);
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('normaliseReport with a campaign', () => {
  test("when only the campaign is given, then its URLs, its flight and its zone are the report's", () => {
    const q = parse({});
    expect(q.filters.url).toEqual(CAMPAIGN.urls);
    expect([iso(q.range.from), iso(q.range.to)]).toEqual(['2026-10-05T04:00:00.000Z', '2026-10-08T03:59:59.999Z']);
    expect(q.timeZone).toBe('America/New_York');
    expect(q.campaign).toBe('spring');
    expect(q.matchesNothing).toBeUndefined();
  });

  test('when a url filter is given, then the campaign URLs it names in any spelling are kept', () => {
    expect(parse({ url: ['https://NEWS.example/guide/?utm_source=x#top', 'https://b.example/'] }).filters.url).toEqual([
      'https://news.example/guide',
    ]);
  });

  test("when dates are given, then they are read in the campaign's zone and cut to the flight", () => {
    const q = parse({ created__gte: '2026-10-06', created__lte: '2026-12-31' });
    expect([iso(q.range.from), iso(q.range.to)]).toEqual(['2026-10-06T04:00:00.000Z', '2026-10-08T03:59:59.999Z']);
    const utc = parse({ created__gte: '2026-10-06', timezone: 'UTC' });
    expect(iso(utc.range.from)).toBe('2026-10-06T00:00:00.000Z');
    expect(utc.timeZone).toBe('UTC');
  });

  test('when an interval is asked without dates, then the series covers the flight', () => {
    const q = parse({ interval: 'day' });
    expect(q.series?.map((b) => new Date(b.time).toISOString())).toEqual([
      '2026-10-05T04:00:00.000Z',
      '2026-10-06T04:00:00.000Z',
      '2026-10-07T04:00:00.000Z',
    ]);
  });

  test('when the url filter or the range misses the campaign, then the query matches nothing (and has no buckets outside the flight)', () => {
    expect(parse({ url: 'https://b.example/' }).matchesNothing).toBe(true);
    expect(parse({}, { ...CAMPAIGN, urls: [] }).matchesNothing).toBe(true);
    const before = parse({ created__lte: '2026-10-04', interval: 'day', fill_zeros: true });
    expect(before).toMatchObject({ matchesNothing: true, series: [] });
    expect(parse({ created__gte: '2026-10-08 04:00:00' }).matchesNothing).toBe(true);
  });

  test('when the flight is longer than the range cap, then 400 names campaign; given bounds too long but cut short by the flight are fine', () => {
    const long = { ...CAMPAIGN, start_date: '2026-01-01', end_date: '2026-12-31' };
    expect(fieldsOf(() => parse({}, long))).toEqual(['campaign']);
    expect(fieldsOf(() => parse({ created__gte: '2026-01-01', created__lte: '2026-12-31' }, long))).toEqual([
      'created__gte',
    ]);
    expect(() => parse({ created__gte: '2026-06-01', created__lte: '2026-06-30' }, long)).not.toThrow();
    expect(() => parse({ created__gte: '2025-01-01', created__lte: '2027-12-31' })).not.toThrow();
  });

  test('when gte is after lte, then 400 names created__lte as without a campaign', () => {
    expect(fieldsOf(() => parse({ created__gte: '2026-10-07', created__lte: '2026-10-06' }))).toEqual(['created__lte']);
  });

  test('when a body names a campaign but no record is given, then it is a programming error, not a report of everything', () => {
    expect(() => normaliseReport(validateReportBody({ owner_id: '42', campaign: 'spring' }), limits)).toThrow(
      /campaign record/,
    );
  });
});
