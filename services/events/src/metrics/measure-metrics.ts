import { MEASURE_MAX, MEASURE_NAMES, type MeasureName } from '@cm/contracts';

/** The percentiles a report may ask for (`<measure>_p90`). */
const PERCENTILES = [50, 75, 90, 95, 99] as const;

/**
 * A statistic of one measure: `sum` and `avg` (exact), a percentile `quantile` and the `share` of
 * events at or above a threshold (both from a quantile sketch: approximate, with a stated error).
 */
export type MeasureMetric =
  | { metric: string; measure: MeasureName; stat: 'sum' | 'avg' }
  | { metric: string; measure: MeasureName; stat: 'quantile'; q: number }
  | { metric: string; measure: MeasureName; stat: 'share'; threshold: number };

// the threshold's digits are bounded by the largest measure (10^12: 13 digits)
const GRAMMAR = new RegExp(
  `^(${MEASURE_NAMES.join('|')})_(sum|avg|p(${PERCENTILES.join('|')})|gte_(0|[1-9][0-9]{0,12}))$`,
);

/**
 * A measure metric's name parsed (`engaged_ms_p90`, `value_sum`, `engaged_ms_gte_10000`), or a
 * message saying why it is not one; undefined when the name is not of a measure at all.
 */
export function parseMeasureMetric(metric: string): MeasureMetric | { error: string } | undefined {
  const m = GRAMMAR.exec(metric);
  if (!m) return undefined;
  const measure = m[1] as MeasureName;
  if (m[3] !== undefined) return { metric, measure, stat: 'quantile', q: Number(m[3]) / 100 };
  if (m[4] !== undefined) {
    const threshold = Number(m[4]);
    if (threshold > MEASURE_MAX[measure])
      return { error: `the threshold of ${measure} is at most ${MEASURE_MAX[measure]}` };
    return { metric, measure, stat: 'share', threshold };
  }
  return { metric, measure, stat: m[2] as 'sum' | 'avg' };
}
