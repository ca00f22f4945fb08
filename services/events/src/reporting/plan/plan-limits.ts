import { ValidationError } from '@cm/platform';
import { HOUR_MS } from '../../storage/time-units';

/**
 * Hard bounds on what one report may plan, whatever its bounds and settings: the spans together
 * cover at most this many hours (about 11 years; REPORT_MAX_RANGE_DAYS is at most 4,000 days, so
 * an allowed range always fits), and there are at most this many spans (series buckets; the most
 * REPORT_MAX_BUCKETS allows). Checked before any loop walks hours, units or ids, so a bad bound
 * is a 400 in microseconds instead of seconds of blocked event loop or a RangeError.
 */
export const MAX_PLAN_HOURS = 100_000;
const MAX_PLAN_SPANS = 100_000;

export function checkPlanSize(spans: ReadonlyArray<{ start: number; end: number }>): void {
  let ms = 0;
  for (const s of spans) ms += Math.max(0, s.end - s.start);
  const hours = Math.ceil(ms / HOUR_MS);
  if (hours > MAX_PLAN_HOURS || spans.length > MAX_PLAN_SPANS) {
    throw new ValidationError('invalid body', [
      {
        field: 'created__gte',
        message: `the range is too long to plan (${hours} hours in ${spans.length} parts; at most ${MAX_PLAN_HOURS} hours)`,
      },
    ]);
  }
}
