import { MEASURE_NAMES } from '@cm/contracts';
import { emptySums, measureSum } from '../../rollups/aggregates/sums-aggregate';
import { emptyQuantileStates } from '../../rollups/aggregates/quantiles-aggregate';
import { QUANTILE_SKETCH, quantileAt, shareAtLeast } from '../../sketches/quantile-sketch';
import type { MeasureMetric } from '../request/measure-metrics';
import type { GroupCount } from './count-source';

/**
 * A measure metric's answer for one group: the sum (0 without events), the average over the
 * events that carried the measure, a percentile and the share of events at or above a threshold
 * (null without any).
 */
export function measureAnswer(group: Pick<GroupCount, 'sums' | 'quantiles'>, m: MeasureMetric): number | null {
  const index = MEASURE_NAMES.indexOf(m.measure);
  switch (m.stat) {
    case 'sum':
      return measureSum(group.sums ?? emptySums(), index).sum;
    case 'avg': {
      const { events, sum } = measureSum(group.sums ?? emptySums(), index);
      return events === 0 ? null : sum / events;
    }
    case 'quantile':
      return quantileAt((group.quantiles ?? emptyQuantileStates())[index]!, m.q);
    case 'share':
      return shareAtLeast((group.quantiles ?? emptyQuantileStates())[index]!, m.threshold);
  }
}

/**
 * Whether a percentile or share is exact: values up to QUANTILE_SKETCH.exactUpTo (128) have a bin
 * each, so a percentile that lands there is the exact nearest-rank value and a share at or above
 * such a threshold counts every value on its right side; no values (null) is exact too.
 */
export function isExactAnswer(m: MeasureMetric, answer: number | null): boolean {
  if (answer === null) return true;
  if (m.stat === 'quantile') return answer <= QUANTILE_SKETCH.exactUpTo;
  if (m.stat === 'share') return m.threshold <= QUANTILE_SKETCH.exactUpTo;
  return true;
}
