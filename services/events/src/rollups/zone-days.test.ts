import { HOUR_MS } from '../storage/time-units';
import { childrenOf, parseUnitId, touchedUnits, unitEnd, unitId } from './rollup-units';
import { inShard } from './rollup-shard';
import { ZONE_DAY_LEVEL, zoneDayProblem, zoneDayStart } from './zone-days';

const NY = 'America/New_York';
const T = (s: string) => Date.parse(s);
const iso = (t: number) => new Date(t).toISOString();
const zoneDay = (zone: string, at: string) => ({ level: ZONE_DAY_LEVEL, start: zoneDayStart(zone, T(at))!, zone });

describe('zone days', () => {
  test('when a New York day is asked, then it runs from local midnight to the next, 24 hours in winter and summer', () => {
    const winter = zoneDay(NY, '2026-01-15T12:00:00Z');
    expect([iso(winter.start), iso(unitEnd(winter))]).toEqual(['2026-01-15T05:00:00.000Z', '2026-01-16T05:00:00.000Z']);
    const summer = zoneDay(NY, '2026-07-04T03:59:59Z');
    expect([iso(summer.start), iso(unitEnd(summer))]).toEqual(['2026-07-03T04:00:00.000Z', '2026-07-04T04:00:00.000Z']);
  });

  test('when the clocks change, then the day is 23 hours in spring and 25 in autumn, and its children are its hours', () => {
    const spring = zoneDay(NY, '2026-03-08T12:00:00Z');
    expect([iso(spring.start), iso(unitEnd(spring))]).toEqual(['2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
    expect(childrenOf(spring)).toHaveLength(23);
    const autumn = zoneDay(NY, '2026-11-01T12:00:00Z');
    expect([iso(autumn.start), iso(unitEnd(autumn))]).toEqual(['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z']);
    const hours = childrenOf(autumn);
    expect(hours).toHaveLength(25);
    expect(hours.every((h, i) => h.level === 0 && h.start === autumn.start + i * HOUR_MS)).toBe(true);
  });

  test('when a zone day id is parsed, then it round-trips, and ids of no whole-hour midnight, unknown zones or odd shapes are refused', () => {
    const day = zoneDay(NY, '2026-11-01T12:00:00Z');
    expect(unitId(day)).toBe(`z:America/New_York:${day.start}`);
    expect(parseUnitId(unitId(day))).toEqual(day);
    for (const bad of [
      `z:America/New_York:${day.start + HOUR_MS}`,
      `z:Mars/Olympus_Mons:${day.start}`,
      `z:Asia/Kolkata:${T('2026-01-14T18:30:00Z')}`,
      `z:$gt:${day.start}`,
      `z:America/New_York:-5`,
      'z:America/New_York:',
      `4:${day.start}`,
    ])
      expect(parseUnitId(bad)).toBeUndefined();
    // a UTC unit's id is unchanged
    expect(parseUnitId(`4:${T('2026-11-01T00:00:00Z')}`)).toEqual({ level: 4, start: T('2026-11-01T00:00:00Z') });
  });

  test('when writes touch hours, then each configured zone day holding one is marked after the UTC units, once', () => {
    const at = [new Date('2026-11-01T03:30:00Z'), new Date('2026-11-01T04:10:00Z'), new Date('2026-11-01T04:50:00Z')];
    const units = touchedUnits(at, [NY, 'Europe/Berlin']);
    const zoned = units.filter((u) => u.level === ZONE_DAY_LEVEL).map(unitId);
    expect(zoned).toEqual([
      unitId(zoneDay(NY, '2026-10-31T12:00:00Z')),
      unitId(zoneDay('Europe/Berlin', '2026-11-01T03:30:00Z')),
      unitId(zoneDay(NY, '2026-11-01T12:00:00Z')),
    ]);
    expect(units.slice(-3).every((u) => u.level === ZONE_DAY_LEVEL)).toBe(true);
    expect(touchedUnits(at).some((u) => u.level === ZONE_DAY_LEVEL)).toBe(false);
  });

  test('when builders share the units, then a zone day belongs to exactly one of them, the same one every time', () => {
    for (const at of ['2026-03-08T12:00:00Z', '2026-11-01T12:00:00Z', '2026-01-15T02:00:00Z']) {
      const day = zoneDay(NY, at);
      const owners = [0, 1, 2].filter((index) => inShard(day, { index, count: 3 }));
      expect(owners).toHaveLength(1);
      expect(inShard({ ...day }, { index: owners[0]!, count: 3 })).toBe(true);
    }
  });

  test('when a zone is checked for zone days, then whole-hour zones pass and half-hour or unknown ones are named', () => {
    for (const ok of [NY, 'Europe/Berlin', 'UTC', 'Asia/Tokyo', 'Australia/Sydney'])
      expect(zoneDayProblem(ok)).toBeUndefined();
    expect(zoneDayProblem('Asia/Kolkata')).toMatch(/whole number of hours/);
    expect(zoneDayProblem('Australia/Lord_Howe')).toMatch(/whole number of hours/);
    expect(zoneDayProblem('Nowhere/Land')).toMatch(/not an IANA time zone/);
  });
});
