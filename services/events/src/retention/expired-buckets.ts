import { bucketDay } from '../storage/bucket-naming';
import { DAY_MS } from '../storage/time-units';

/**
 * A day bucket is expired once its whole day lies more than retentionDays in the past, so every
 * event is kept at least retentionDays (and less than one day longer).
 */
export function isExpiredDay(dayStart: Date, now: Date, retentionDays: number): boolean {
  return dayStart.getTime() + DAY_MS <= now.getTime() - retentionDays * DAY_MS;
}

/** Start of the oldest day not yet expired: days before it are past retention. */
export function firstKeptDay(now: Date, retentionDays: number): number {
  const lastExpired = now.getTime() - (retentionDays + 1) * DAY_MS;
  return (Math.floor(lastExpired / DAY_MS) + 1) * DAY_MS;
}

/** True for an event whose day bucket is expired (the consumer drops such late arrivals). */
export function isPastRetention(created: Date, now: Date, retentionDays: number): boolean {
  const dayStart = new Date(Date.UTC(created.getUTCFullYear(), created.getUTCMonth(), created.getUTCDate()));
  return isExpiredDay(dayStart, now, retentionDays);
}

/** The collections among `names` that are buckets of `prefix` and expired; others are never touched. */
export function expiredBuckets(names: string[], prefix: string, now: Date, retentionDays: number): string[] {
  return names.filter((name) => {
    const day = bucketDay(prefix, name);
    return day !== undefined && isExpiredDay(day, now, retentionDays);
  });
}
