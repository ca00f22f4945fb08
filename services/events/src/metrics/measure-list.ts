import { MEASURE_NAMES, type MeasureName } from '@cm/contracts';

/**
 * The measures in their stored order (MEASURE_NAMES), bound once here: the contracts package
 * re-exports them through a getter, which the loops of a state's write, read and merge called at
 * every step (1 % of a catch-up's time).
 */
export const MEASURE_LIST: readonly MeasureName[] = MEASURE_NAMES;
