import { UnavailableError, ValidationError } from '@cm/platform';
import type { CampaignRecord } from '@cm/contracts';
import type { CampaignLookup } from '../../registry/campaign-registry-watcher';
import { campaignFlight, campaignOf, flightDays } from './campaign-scope';

const iso = (ms: number) => new Date(ms).toISOString();
const scope = (over: Partial<CampaignRecord> = {}) => ({
  urls: ['https://a.example/1', 'https://a.example/2?x=1', `https://a.example/${'l'.repeat(2100)}`],
  start_date: '2026-03-28',
  end_date: '2026-03-29',
  timezone: 'Europe/Berlin',
  ...over,
});

describe('campaignFlight', () => {
  test.each([
    // the night the clocks go forward: the last day is 23 hours long
    ['Europe/Berlin', '2026-03-28', '2026-03-29', '2026-03-27T23:00:00.000Z', '2026-03-29T21:59:59.999Z'],
    ['Asia/Kolkata', '2026-11-01', '2026-11-01', '2026-10-31T18:30:00.000Z', '2026-11-01T18:29:59.999Z'],
    ['UTC', '2026-12-31', '2027-01-01', '2026-12-31T00:00:00.000Z', '2027-01-01T23:59:59.999Z'],
    ['Pacific/Kiritimati', '2026-06-01', '2026-06-30', '2026-05-31T10:00:00.000Z', '2026-06-30T09:59:59.999Z'],
  ])('when the campaign runs in %s from %s to %s, then the flight is %s .. %s', (timezone, start, end, from, to) => {
    const flight = campaignFlight(scope({ timezone, start_date: start, end_date: end }));
    expect([iso(flight.from), iso(flight.to)]).toEqual([from, to]);
  });

  test('when the end precedes the start, then the flight is empty', () => {
    const flight = campaignFlight(scope({ start_date: '2026-05-02', end_date: '2026-05-01' }));
    expect(flight.from).toBeGreaterThan(flight.to);
    expect(flightDays({ start_date: '2026-05-02', end_date: '2026-05-01' })).toBe(0);
  });

  test('when flight days are counted, then both ends are included, across months and DST', () => {
    expect(flightDays({ start_date: '2026-03-28', end_date: '2026-03-29' })).toBe(2);
    expect(flightDays({ start_date: '2026-01-01', end_date: '2026-12-31' })).toBe(365);
    expect(flightDays({ start_date: '2026-06-15', end_date: '2026-06-15' })).toBe(1);
  });
});

describe('campaignOf', () => {
  const record = { ...scope(), token: 'c1', owner_id: '42' } as CampaignRecord;
  const lookup = (ready: boolean): CampaignLookup => ({
    isReady: () => ready,
    campaign: (owner, token) => (owner === '42' && token === 'c1' ? record : undefined),
  });

  test('when the registry knows the campaign for the owner, then it is the answer', () => {
    expect(campaignOf(lookup(true), '42', 'c1')).toBe(record);
  });

  test("when the token is unknown or another owner's, then the same 400 names campaign", () => {
    const errors = [
      ['42', 'c2'],
      ['43', 'c1'],
    ].map(([owner, token]) => {
      try {
        campaignOf(lookup(true), owner!, token!);
      } catch (err) {
        return err;
      }
      return undefined;
    });
    for (const err of errors) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details).toEqual([
        { field: 'campaign', message: 'is not a campaign of this owner_id' },
      ]);
    }
  });

  test('when the registry is not replayed yet, then 503 with a Retry-After, even for a known token', () => {
    expect(() => campaignOf(lookup(false), '42', 'c1')).toThrow(UnavailableError);
  });
});
