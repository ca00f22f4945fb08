/**
 * A mergeable aggregate kept per cell and device: cells of hours merge into days, days into
 * blocks, and a report merges cells and raw parts in whatever order they stream in, so `merge`
 * must be associative and commutative with `empty()` neutral (aggregate-laws.test.ts checks each
 * registered aggregate).
 */
export interface Aggregate<S> {
  /** The state of no events. */
  empty(): S;
  /** The state of two disjoint sets of events together. */
  merge(a: S, b: S): S;
}

/** One state per device, in DEVICE_ORDER. */
export type PerDevice<S> = [S, S, S];

/** The state of the selected devices together (`devices` indexes into DEVICE_ORDER). */
export function foldDevices<S>(aggregate: Aggregate<S>, states: Readonly<PerDevice<S>>, devices: readonly number[]): S {
  let state = aggregate.empty();
  for (const d of devices) state = aggregate.merge(state, states[d]!);
  return state;
}
