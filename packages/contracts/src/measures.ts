/**
 * The numeric values an event may carry besides its count (pixel parameters of the same names):
 * engaged time in milliseconds, the maximum scroll depth in percent, and a conversion value in the
 * owner's minor currency unit (cents). Reports sum, average and take percentiles of them.
 */
export const MEASURE_NAMES = ['engaged_ms', 'scroll_depth', 'value'] as const;
export type MeasureName = (typeof MEASURE_NAMES)[number];

/** The measures one event carried (only those; absent when none). */
export type Measures = Partial<Record<MeasureName, number>>;

/** The largest value of each measure (all are integers from 0). */
export const MEASURE_MAX: Readonly<Record<MeasureName, number>> = {
  engaged_ms: 3_600_000,
  scroll_depth: 100,
  value: 1_000_000_000_000,
};
