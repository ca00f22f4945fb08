import { engagedClock, type EngagedClock } from './engaged-clock';
import type { EventParams } from './pixel';
import { scrollDepth } from './scroll-depth';

const ACTIVITY = ['load', 'focus', 'scroll', 'resize', 'mousemove', 'mousedown', 'keydown', 'touchstart'];
const LIFECYCLE = ['visibilitychange', 'pagehide', 'pageshow'];
// passive: a listener that never cancels must not hold up scrolling; on window, in the bubbling
// phase, so an image's or a widget's own load or focus is not the reader's activity
const LISTEN = { passive: true };

/**
 * Measures attention on this page view and sends it as `engagement` events (engaged_ms,
 * scroll_depth) when the page is hidden or left; see README "Attention". Each event carries the
 * engaged time since the previous one, so their sum is the page view's engaged time; a hide
 * with nothing new (no engaged time, no deeper scroll) sends nothing. A page restored from the
 * back/forward cache is a new page view.
 */
export function measureEngagement(
  track: (name: string, params: EventParams) => boolean,
  guard: <T>(fallback: T, fn: () => T) => T,
  params?: EventParams,
): () => void {
  const now = () => performance.now();
  let clock: EngagedClock;
  let depth: number;
  let sentDepth: number;
  const measure = () => {
    depth = Math.max(depth, scrollDepth(scrollY + innerHeight, document.documentElement.scrollHeight));
  };
  const begin = () => {
    clock = engagedClock(now(), document.visibilityState !== 'hidden');
    depth = 0;
    sentDepth = -1; // the first hide of a page view always reports, even 0 ms
    measure();
  };
  const send = () => {
    measure();
    const engaged = clock.take(now());
    if (engaged > 0 || depth > sentDepth) {
      sentDepth = depth;
      track('engagement', Object.assign({}, params, { engaged_ms: engaged, scroll_depth: depth }));
    }
  };
  const onActivity = (event: Event) =>
    guard(undefined, () => {
      clock.active(now());
      if (event.type === 'scroll' || event.type === 'resize') measure();
    });
  const onLifecycle = (event: Event) =>
    guard(undefined, () => {
      if (event.type === 'pageshow') {
        if ((event as PageTransitionEvent).persisted) begin();
      } else if (event.type === 'visibilitychange' && document.visibilityState !== 'hidden') {
        clock.visible(now(), true);
      } else {
        clock.visible(now(), false);
        send();
      }
    });
  begin();
  for (const type of ACTIVITY) addEventListener(type, onActivity, LISTEN);
  for (const type of LIFECYCLE) addEventListener(type, onLifecycle, LISTEN);
  return () =>
    guard(undefined, () => {
      for (const type of ACTIVITY) removeEventListener(type, onActivity);
      for (const type of LIFECYCLE) removeEventListener(type, onLifecycle);
      send();
    });
}
