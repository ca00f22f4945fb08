export type SaltPeriod = 'day' | 'week' | 'month';

/** One salt period: [start, end) in epoch ms, and its key in the salt bucket (the start's UTC date). */
export interface PeriodSpan {
  key: string;
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;

/** The longest a period lasts (a 31-day month): the salt bucket's max age is derived from it. */
export function longestPeriodMs(period: SaltPeriod): number {
  return period === 'day' ? DAY_MS : period === 'week' ? 7 * DAY_MS : 31 * DAY_MS;
}

/** The UTC day, ISO week (Monday to Sunday) or calendar month that contains `now`. */
export function periodAt(period: SaltPeriod, now: number): PeriodSpan {
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  let start: number;
  let end: number;
  if (period === 'day') {
    start = day;
    end = day + DAY_MS;
  } else if (period === 'week') {
    // getUTCDay: 0 is Sunday; an ISO week starts on Monday
    start = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
    end = start + 7 * DAY_MS;
  } else {
    const d = new Date(day);
    start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return { key: new Date(start).toISOString().slice(0, 10), start, end };
}

/** The period that a salt key (the UTC date its period starts on) names. */
export function periodOfKey(period: SaltPeriod, key: string): PeriodSpan {
  return periodAt(period, Date.parse(`${key}T00:00:00Z`));
}
