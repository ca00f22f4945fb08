/**
 * Hour buckets of a zone computed another way than reporting/request/zoned-time.ts, for tests: every
 * minute's local wall time and offset straight from Intl (`longOffset`), a bucket being a run of
 * minutes with the same local hour and the same offset. Slow (one Intl call per minute), exact.
 */
export interface ReferenceHour {
  /** The first minute's local time with its offset, e.g. 2026-10-04T02:30:00+11:00. */
  label: string;
  start: number;
  /** Exclusive. */
  end: number;
}

const MINUTE_MS = 60_000;

export function referenceHourBuckets(zone: string, from: number, to: number): ReferenceHour[] {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'longOffset',
  });
  const out: ReferenceHour[] = [];
  let key = '';
  for (let t = from; t < to; t += MINUTE_MS) {
    const p = Object.fromEntries(format.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
    const offset = p.timeZoneName === 'GMT' ? '+00:00' : p.timeZoneName!.slice(3);
    const hourKey = `${p.year}-${p.month}-${p.day}T${p.hour}|${offset}`;
    if (hourKey !== key) {
      out.push({
        label: `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:00${offset}`,
        start: t,
        end: t + MINUTE_MS,
      });
      key = hourKey;
    } else {
      out[out.length - 1]!.end = t + MINUTE_MS;
    }
  }
  return out;
}

/** How many of the instants fall in each bucket, by label. */
export function countByBucket(
  buckets: ReadonlyArray<{ label: string; start: number; end: number }>,
  instants: readonly number[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const at of instants) {
    const b = buckets.find((x) => x.start <= at && at < x.end);
    if (b) counts[b.label] = (counts[b.label] ?? 0) + 1;
  }
  return counts;
}
