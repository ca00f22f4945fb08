import { formatZoned, localDayStart, nextLocalDayStart, offsetMs, zonedInstant } from './zone-clock';

/** The local date of an instant in a zone, read from a formatter of the test's own (no memo). */
function localDate(zone: string, at: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date(at))
    .filter((p) => p.type !== 'literal')
    .map((p) => p.value);
  return parts.join('-');
}

const DAY_MS = 86_400_000;

describe('zone arithmetic asked again', () => {
  // zones with DST both ways, a half-hour DST (Lord Howe), a skipped midnight (Santiago) and none
  const zones = ['America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kathmandu'];

  test('when every local day of 15 years is walked in four zones (past the bound of the wall times kept, so they are cleared on the way), then each day starts at the first instant of its local date, the same on a second walk', () => {
    const from = Date.UTC(2000, 0, 1);
    const walks = zones.map(() => [] as number[]);
    for (let round = 0; round < 2; round++) {
      zones.forEach((zone, z) => {
        let start = localDayStart(zone, from);
        for (let day = 0; day < 15 * 365; day++) {
          if (round === 0) walks[z]!.push(start);
          else expect(start).toBe(walks[z]![day]);
          start = nextLocalDayStart(zone, start);
        }
      });
    }
    // checked once against a formatter of the test's own: the date changes exactly at each start
    zones.forEach((zone, z) => {
      const starts = walks[z]!;
      for (let day = 1; day < starts.length; day += 7) {
        const start = starts[day]!;
        expect(localDate(zone, start - 1)).toBe(localDate(zone, starts[day - 1]!));
        expect(localDate(zone, start)).not.toBe(localDate(zone, start - 1));
        expect(start - starts[day - 1]!).toBeGreaterThanOrEqual(DAY_MS - 3_600_000);
        expect(start - starts[day - 1]!).toBeLessThanOrEqual(DAY_MS + 3_600_000);
      }
    });
  });

  test('when a zone is asked in 2,000 letter-case spellings, then every spelling gets the same answers', () => {
    const zone = 'America/New_York';
    const expected = formatZoned(zone, localDayStart(zone, Date.UTC(2026, 10, 1, 12)));
    for (let i = 0; i < 2000; i++) {
      // bit j of i upper-cases letter j of the name
      let spelled = '';
      for (let j = 0, letter = 0; j < zone.length; j++) {
        const c = zone[j]!;
        const isLetter = /[a-z]/i.test(c);
        spelled += isLetter && (i >> letter++) & 1 ? c.toUpperCase() : c.toLowerCase();
      }
      expect(formatZoned(spelled, localDayStart(spelled, Date.UTC(2026, 10, 1, 12)))).toBe(expected);
    }
  });

  test('when the same wall time, offset and format are asked again, then the answers are the first ones', () => {
    const first = zones.map((zone) => [
      zonedInstant(zone, 2026, 3, 29, 2, 30),
      zonedInstant(zone, 2026, 11, 1, 1, 30),
      offsetMs(zone, Date.UTC(2026, 6, 1)),
      formatZoned(zone, Date.UTC(2026, 9, 4, 3)),
    ]);
    const again = zones.map((zone) => [
      zonedInstant(zone, 2026, 3, 29, 2, 30),
      zonedInstant(zone, 2026, 11, 1, 1, 30),
      offsetMs(zone, Date.UTC(2026, 6, 1)),
      formatZoned(zone, Date.UTC(2026, 9, 4, 3)),
    ]);
    expect(again).toEqual(first);
    // Santiago's 2026-09-06 starts at 01:00 local (its midnight is skipped), asked twice
    expect(formatZoned('America/Santiago', zonedInstant('America/Santiago', 2026, 9, 6))).toBe(
      '2026-09-06T01:00:00-03:00',
    );
    expect(formatZoned('America/Santiago', zonedInstant('America/Santiago', 2026, 9, 6))).toBe(
      '2026-09-06T01:00:00-03:00',
    );
  });
});
