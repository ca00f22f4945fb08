import { zoneDayEnd, zoneDayStart } from '../../src/rollups/zone-days';

/** The buckets of a day series in `zone`, `n` local days from the one holding instant `first`. */
export function zoneDaySeries(
  zone: string,
  first: number,
  n: number,
): Array<{ start: number; end: number; time: number }> {
  const out = [];
  for (let start = zoneDayStart(zone, first)!, i = 0; i < n; i++) {
    const end = zoneDayEnd(zone, start);
    out.push({ start, end, time: start });
    start = end;
  }
  return out;
}
