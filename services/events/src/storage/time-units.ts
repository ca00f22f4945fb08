/** Time units in milliseconds, and the UTC day/hour arithmetic the buckets, rollups and reports share. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The start (epoch ms) of the UTC day that holds `ms`: day buckets are UTC days. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The start (epoch ms) of the hour that holds `ms`. */
export function utcHourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** UTC day number (days since the epoch) of an instant. */
export function utcDayIndex(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS);
}
