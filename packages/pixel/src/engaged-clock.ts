/** A reader counts as engaged for this long after their last activity (Chartbeat's rule). */
export const IDLE_MS = 5000;
/** At most this much engaged time per page view: a tab left open with a twitching mouse is not half a day of reading. */
export const ENGAGED_CAP_MS = 1800000;

export interface EngagedClock {
  /** The reader did something (load, focus, scroll, resize, mouse, key, touch) at `t`. */
  active(t: number): void;
  /** The page became visible (true) or hidden (false) at `t`. */
  visible(t: number, shown: boolean): void;
  /** Whole engaged milliseconds accrued since the previous take (the first: since the start), up to the cap. */
  take(t: number): number;
}

/**
 * The engaged-time clock of one page view, fed with timestamps (milliseconds, monotonic): time
 * counts while the page is visible and the last activity is at most IDLE_MS old. Pure, so the
 * rule is tested without a browser. Starting the clock counts as activity (the page's load).
 */
export function engagedClock(start: number, shown: boolean): EngagedClock {
  let isVisible = shown;
  let activeUntil = start + IDLE_MS;
  let counted = start; // time before this is accounted for
  let total = 0;
  let taken = 0;
  const settle = (t: number) => {
    if (isVisible) total += Math.max(0, Math.min(t, activeUntil) - counted);
    counted = Math.max(counted, t);
  };
  return {
    active(t) {
      settle(t);
      activeUntil = t + IDLE_MS;
    },
    visible(t, v) {
      settle(t);
      isVisible = v;
    },
    take(t) {
      settle(t);
      // whole milliseconds of the running total, so the increments sum exactly to the rounded total
      const increment = Math.round(Math.min(total, ENGAGED_CAP_MS)) - taken;
      taken += increment;
      return increment;
    },
  };
}
