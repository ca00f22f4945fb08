import { MEASURE_NAMES } from '@cm/contracts';
import { averageOf, emptySums, measureSum, type ExactSum } from '../../rollups/aggregates/sums-aggregate';
import { emptyQuantileStates } from '../../rollups/aggregates/quantiles-aggregate';
import { quantileAnswer, shareAnswer } from '../../sketches/quantile-sketch';
import type { MeasureMetric } from '../request/measure-metrics';
import type { GroupCount } from './count-source';

/** A measure metric's answer: a sum past 2^53 is a bigint (see sumAsJson), anything else a number or null. */
export interface MeasureAnswer {
  value: ExactSum | null;
  exact: boolean;
}

/**
 * A measure metric's answer for one group and whether it is exact: the sum (0 without events) and
 * the average over the events that carried the measure are (the average as the double nearest the
 * exact quotient, give or take its last bit); a percentile and the share of events
 * at or above a threshold (null without any) are exact when the quantile sketch proves it
 * (sketches/quantile-query.ts: the min and max, values up to 128, a single value, a threshold
 * outside the values, ...), else within its relative accuracy.
 */
export function measureAnswer(group: Pick<GroupCount, 'sums' | 'quantiles'>, m: MeasureMetric): MeasureAnswer {
  const index = MEASURE_NAMES.indexOf(m.measure);
  switch (m.stat) {
    case 'sum':
      return { value: measureSum(group.sums ?? emptySums(), index).sum, exact: true };
    case 'avg': {
      const { events, sum } = measureSum(group.sums ?? emptySums(), index);
      return { value: events === 0 ? null : averageOf(sum, events), exact: true };
    }
    case 'quantile':
      return quantileAnswer((group.quantiles ?? emptyQuantileStates())[index]!, m.q);
    case 'share':
      return shareAnswer((group.quantiles ?? emptyQuantileStates())[index]!, m.threshold);
  }
}

/**
 * A JSON number is exact only up to 2^53, so a sum past it (a bigint) is answered as its decimal
 * digits, a string; every smaller sum stays a number.
 */
export function sumAsJson(value: ExactSum | null): number | string | null {
  return typeof value === 'bigint' ? value.toString() : value;
}
