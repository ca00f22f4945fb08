import type { Aggregate, ParsedMetric } from './aggregate';

/** How many events: a number per device. Answers `count`, which is a row's `value`. */
export const countAggregate: Aggregate<number> = {
  column: 'n',
  storage: 'perDevice',
  empty: () => 0,
  isEmpty: (n) => n === 0,
  add: (n) => n + 1,
  merge: (a, b) => a + b,
  mergeInto: (a, b) => a + b,
  own: (n) => n,
  additive: true,
  rowGroup: () => ({ n: { $sum: 1 } }),
  fromRow: (row) => Number(row.n),
  write: (w, n) => w.uint(n),
  read: (r) => r.uint(),
  // every report counts: `value` is in every row
  asked: () => true,
  parseMetric: (name) => (name === 'count' ? ({ metric: 'count' } satisfies ParsedMetric) : undefined),
  bytes: () => 0,
  // `value` is written by the rows themselves (the spec's field), whatever the metrics
  rank: (n) => n,
};
