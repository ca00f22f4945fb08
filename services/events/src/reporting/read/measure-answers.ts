import { MEASURE_NAMES } from '@cm/contracts';
import { emptySums, measureSum } from '../../rollups/aggregates/sums-aggregate';
import { emptyQuantileStates } from '../../rollups/aggregates/quantiles-aggregate';
import { quantileAnswer, shareAnswer, type QuantileAnswer } from '../../sketches/quantile-sketch';
import type { MeasureMetric } from '../request/measure-metrics';
import type { GroupCount } from './count-source';

/**
 * A measure metric's answer for one group and whether it is exact: the sum (0 without events) and
 * the average over the events that carried the measure are; a percentile and the share of events
 * at or above a threshold (null without any) are exact when the quantile sketch proves it
 * (sketches/quantile-query.ts: the min and max, values up to 128, a single value, a threshold
 * outside the values, ...), else within its relative accuracy.
 */
export function measureAnswer(group: Pick<GroupCount, 'sums' | 'quantiles'>, m: MeasureMetric): QuantileAnswer {
  const index = MEASURE_NAMES.indexOf(m.measure);
  switch (m.stat) {
    case 'sum':
      return { value: measureSum(group.sums ?? emptySums(), index).sum, exact: true };
    case 'avg': {
      const { events, sum } = measureSum(group.sums ?? emptySums(), index);
      return { value: events === 0 ? null : sum / events, exact: true };
    }
    case 'quantile':
      return quantileAnswer((group.quantiles ?? emptyQuantileStates())[index]!, m.q);
    case 'share':
      return shareAnswer((group.quantiles ?? emptyQuantileStates())[index]!, m.threshold);
  }
}
