import { ValidationError } from '@cm/platform';
import { loadEventsConfig } from '../../config';
import { checkPlanSize, MAX_PLAN_HOURS } from '../plan/plan-report';
import { clampReportRange, FUTURE_SKEW_MS, reportRange } from './report-range';

const T = (s: string) => Date.parse(s);
const D = (s: string) => new Date(s);
const DAY = 86_400_000;
const stored = { oldest: T('2026-01-01T00:00:00Z'), newest: T('2026-11-23T00:00:00Z') };
const now = T('2026-11-23T10:00:00Z');
const clamp = (range: { from?: Date; to?: Date }, maxRangeDays = 400, s: typeof stored | undefined = stored) =>
  clampReportRange(range, s, { maxRangeDays, now });
const iso = (r: { from: number; to: number } | undefined) =>
  r && [new Date(r.from).toISOString(), new Date(r.to).toISOString()];

describe('clampReportRange', () => {
  test.each([
    ['no bound', {}, ['2026-01-01T00:00:00.000Z', '2026-11-23T11:00:00.000Z']],
    [
      'only created__lte far in the future',
      { to: D('2250-01-01T23:59:59.999Z') },
      ['2026-01-01T00:00:00.000Z', '2026-11-23T11:00:00.000Z'],
    ],
    [
      'only created__lte in the year 275760',
      { to: new Date(8.64e15) },
      ['2026-01-01T00:00:00.000Z', '2026-11-23T11:00:00.000Z'],
    ],
    [
      'only created__lte inside the data',
      { to: D('2026-06-01T12:00:00.000Z') },
      ['2026-01-01T00:00:00.000Z', '2026-06-01T12:00:00.000Z'],
    ],
    [
      'only created__gte in 1970',
      { from: D('1970-01-01T00:00:00Z') },
      ['2026-01-01T00:00:00.000Z', '2026-11-23T11:00:00.000Z'],
    ],
    [
      'only created__gte inside the data',
      { from: D('2026-11-01T06:00:00Z') },
      ['2026-11-01T06:00:00.000Z', '2026-11-23T11:00:00.000Z'],
    ],
    [
      'both bounds, before any data',
      { from: D('2020-01-01T00:00:00Z'), to: D('2020-01-02T00:00:00Z') },
      ['2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z'],
    ],
  ])('when the range has %s, then it is clamped to the stored days and now plus the skew', (_, range, expected) => {
    expect(iso(clamp(range))).toEqual(expected);
    expect(FUTURE_SKEW_MS).toBe(3_600_000);
  });

  test('when an open range finds more days than the cap and created__gte is absent, then the newest days up to the cap are read', () => {
    expect(iso(clamp({}, 10))).toEqual(['2026-11-14T00:00:00.000Z', '2026-11-23T11:00:00.000Z']);
    expect(iso(clamp({ to: D('2026-06-01T12:00:00Z') }, 10))).toEqual([
      '2026-05-23T00:00:00.000Z',
      '2026-06-01T12:00:00.000Z',
    ]);
  });

  test('when created__gte reaches further back than the cap allows, then it is a 400 naming created__lte, with the clamped days', () => {
    const call = () => clamp({ from: D('1970-01-01T00:00:00Z') }, 10);
    expect(call).toThrow(ValidationError);
    try {
      call();
    } catch (err) {
      expect((err as ValidationError).details).toEqual([
        {
          field: 'created__lte',
          message: 'the range up to the newest stored events (2026-11-23) touches 327 days; at most 10 are allowed',
        },
      ]);
    }
  });

  test('when there is no bucket, or the open range lies beyond the data, then there is nothing to read', () => {
    expect(clampReportRange({}, undefined, { maxRangeDays: 400, now })).toBeUndefined();
    expect(clamp({ from: D('2027-01-01T00:00:00Z') })).toBeUndefined();
    expect(clamp({ from: D('2026-11-23T11:00:00.001Z') })).toBeUndefined();
    expect(clamp({ to: D('2025-12-31T23:59:59.999Z') })).toBeUndefined();
  });

  test('when the newest bucket lies in the future, then the open upper bound stops at now plus the skew', () => {
    expect(iso(clamp({}, 400, { oldest: stored.oldest, newest: T('2250-01-01T00:00:00Z') }))?.[1]).toBe(
      '2026-11-23T11:00:00.000Z',
    );
    expect(iso(clamp({}, 400, { oldest: stored.oldest, newest: stored.newest - 2 * DAY }))?.[1]).toBe(
      '2026-11-21T23:59:59.999Z',
    );
  });
});

describe('checkPlanSize', () => {
  test('when the spans cover at most the hard cap of hours, then planning may go on', () => {
    expect(() => checkPlanSize([{ start: 0, end: MAX_PLAN_HOURS * 3_600_000 }])).not.toThrow();
  });

  test.each([
    ['a span over the cap', [{ start: 0, end: MAX_PLAN_HOURS * 3_600_000 + 1 }]],
    ['1970 to the year 9999', [{ start: 0, end: T('9999-12-31T23:59:59Z') }]],
    ['more spans than allowed', Array.from({ length: 100_001 }, (_, i) => ({ start: i, end: i + 1 }))],
  ])('when planning gets %s, then it is a 400 before any walk', (_, spans) => {
    expect(() => checkPlanSize(spans)).toThrow(ValidationError);
  });

  test('when REPORT_MAX_RANGE_DAYS is set, then any range it allows fits the plan cap, and a larger value is refused at start-up', () => {
    const most = loadEventsConfig({ REPORT_MAX_RANGE_DAYS: '4000' }).REPORT_MAX_RANGE_DAYS;
    expect(() => checkPlanSize([{ start: 0, end: (most + 1) * DAY }])).not.toThrow();
    expect(() => loadEventsConfig({ REPORT_MAX_RANGE_DAYS: '4001' })).toThrow(/REPORT_MAX_RANGE_DAYS/);
  });
});

describe('reportRange', () => {
  const flight = { from: T('2026-03-01T00:00:00Z'), to: T('2026-03-31T23:59:59.999Z') };
  const isoOf = (r: { from?: Date; to?: Date }) => [r.from?.toISOString(), r.to?.toISOString()];

  test.each([
    [
      'both bounds, no campaign',
      { from: D('2026-01-01T00:00:00Z'), to: D('2026-01-02T00:00:00Z') },
      undefined,
      ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'],
      false,
    ],
    [
      'an open range, no campaign',
      { from: D('2026-01-01T00:00:00Z') },
      undefined,
      ['2026-01-01T00:00:00.000Z', undefined],
      false,
    ],
    ['no bound within a flight', {}, flight, ['2026-03-01T00:00:00.000Z', '2026-03-31T23:59:59.999Z'], false],
    [
      'a range across the flight start',
      { from: D('2026-02-20T00:00:00Z'), to: D('2026-03-05T12:00:00Z') },
      flight,
      ['2026-03-01T00:00:00.000Z', '2026-03-05T12:00:00.000Z'],
      false,
    ],
    [
      'a range before the flight',
      { from: D('2026-01-01T00:00:00Z'), to: D('2026-01-31T00:00:00Z') },
      flight,
      ['2026-01-01T00:00:00.000Z', '2026-01-31T00:00:00.000Z'],
      true,
    ],
  ])('when %s, then the range is %j', (_, given, f, expected, outside) => {
    const { range, outside: out } = reportRange(given, f, 400);
    expect(isoOf(range)).toEqual(expected);
    expect(out).toBe(outside);
  });

  test.each([
    [
      'created__lte before created__gte',
      { from: D('2026-01-02T00:00:00Z'), to: D('2026-01-01T00:00:00Z') },
      undefined,
      'created__lte',
    ],
    [
      'both bounds over the cap',
      { from: D('2026-01-01T00:00:00Z'), to: D('2026-01-11T00:00:00Z') },
      undefined,
      'created__gte',
    ],
    [
      'both bounds over the cap within a flight',
      { from: D('2026-03-01T00:00:00Z'), to: D('2026-03-20T00:00:00Z') },
      flight,
      'created__gte',
    ],
    ['an open range whose flight is over the cap', {}, flight, 'campaign'],
  ])('when %s, then it is a 400 naming %s', (_, given, f, field) => {
    let err: unknown;
    try {
      reportRange(given, f, 10);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details?.[0]?.field).toBe(field);
  });
});
