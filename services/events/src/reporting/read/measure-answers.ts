import { MEASURE_NAMES } from '@cm/contracts';
import { emptySums, measureSum } from '../../rollups/aggregates/sums-aggregate';
import type { MeasureMetric } from '../request/measure-metrics';
import type { GroupCount } from './count-source';

/**
 * A measure metric's answer for one group: the sum (0 without events), the average over the
 * events that carried the measure (null without any).
 */
export function measureAnswer(group: Pick<GroupCount, 'sums'>, m: MeasureMetric): number | null {
  const index = MEASURE_NAMES.indexOf(m.measure);
  switch (m.stat) {
    case 'sum':
      return measureSum(group.sums ?? emptySums(), index).sum;
    case 'avg': {
      const { events, sum } = measureSum(group.sums ?? emptySums(), index);
      return events === 0 ? null : sum / events;
    }
    default:
      throw new Error(`not yet answered: ${m.metric}`);
  }
}
