import type { Aggregate } from './aggregate';

/** How many events: stored per device in each cell entry. */
export const countAggregate: Aggregate<number> = {
  empty: () => 0,
  merge: (a, b) => a + b,
};
