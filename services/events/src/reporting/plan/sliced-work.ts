import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Work written as a generator that yields between slices (a few thousand steps): run at once
 * (pure callers, tests), or giving the event loop a turn at every yield, so a report's planning
 * never holds other requests for more than a slice.
 */
export type SlicedWork<T> = Generator<void, T, void>;

/** Steps between two yields: about a millisecond of planning each. */
export const STEPS_PER_SLICE = 1000;

export function runAtOnce<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

export async function runYielding<T>(work: SlicedWork<T>): Promise<T> {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
