import Joi from 'joi';

/** The numeric values a hit may carry, in the order reports list them. */
export const MEASURE_NAMES = ['engaged_ms', 'scroll_depth', 'value'] as const;

export type MeasureName = (typeof MEASURE_NAMES)[number];

/** Only the measures the hit carried; an event that carried none has no `measures` at all. */
export type Measures = { [K in MeasureName]?: number };

/**
 * The largest value of each measure (the smallest is 0, and all are integers): engaged time in
 * milliseconds up to an hour, scroll depth in percent, a conversion value in the owner's minor
 * currency unit up to 10^12 (exact as a JS number and a BSON double).
 */
export const MEASURE_MAX: Readonly<Record<MeasureName, number>> = {
  engaged_ms: 3_600_000,
  scroll_depth: 100,
  value: 1_000_000_000_000,
};

const measure = (name: MeasureName) => Joi.number().integer().min(0).max(MEASURE_MAX[name]);

/** The contract's schema of `measures`: known names only, at least one (the field is left out otherwise). */
export const measuresSchema = Joi.object<Measures>({
  engaged_ms: measure('engaged_ms'),
  scroll_depth: measure('scroll_depth'),
  value: measure('value'),
}).min(1);

const within = (v: unknown, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

/**
 * The fast structural check of `measures` (a subset of measuresSchema): a plain object with one to
 * three known names, each an integer in range. Anything unusual (`__proto__`, inherited names such
 * as `constructor`) is false, which leaves it to Joi.
 */
export function isPlainValidMeasures(m: unknown): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  let keys = 0;
  for (const key in m) {
    keys++;
    const v = (m as Record<string, unknown>)[key];
    switch (key) {
      case 'engaged_ms':
        if (!within(v, MEASURE_MAX.engaged_ms)) return false;
        break;
      case 'scroll_depth':
        if (!within(v, MEASURE_MAX.scroll_depth)) return false;
        break;
      case 'value':
        if (!within(v, MEASURE_MAX.value)) return false;
        break;
      default:
        return false;
    }
  }
  return keys > 0;
}
