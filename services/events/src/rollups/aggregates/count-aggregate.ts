import type { Aggregate, PerDevice } from './aggregate';

/** How many events: stored per device in each cell entry (`[..keys, [desktop, tablet, mobile]]`). */
export const countAggregate: Aggregate<number, number> = {
  empty: () => 0,
  add: (n) => n + 1,
  merge: (a, b) => a + b,
  stored: 'entry',
  // the stored array is the state itself: no copy on the report's hot path
  encode: (states) => states,
  decode: (stored) => (stored as PerDevice<number> | undefined) ?? [0, 0, 0],
  group: () => ({ v: { $sum: 1 } }),
  fromGroup: (row) => Number(row.v),
  answer: (n) => n,
  answerField: 'value',
  asked: () => true,
  reportGroup: () => ({ value: { $sum: 1 } }),
  fromReportGroup: (row) => Number(row.value),
};
