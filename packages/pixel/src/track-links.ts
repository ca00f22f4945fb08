import type { EventParams, Tracker, TrackLinksOptions } from './pixel';

const EVENTS = ['click', 'auxclick'];

/**
 * Counts clicks on the links matching `selector` (default `a[data-track]`): the event name is
 * the link's `data-track` value (else "click"), `data-content-id` becomes content_id.
 *
 * Listens on `root` in the bubbling phase, so the page's own handlers run first: when one of
 * them took over the click (preventDefault, e.g. a client-side router), the click is sent as a
 * beacon; otherwise the link's href is swapped for its click-tracking URL just for this
 * navigation (the browser reads href when the click's default action runs, after all
 * listeners) and put back right after, so hovering, copying and going back see the real link.
 */
export function trackLinks(
  tracker: Pick<Tracker, 'track' | 'clickUrl'>,
  guard: <T>(fallback: T, fn: () => T) => T,
  options: TrackLinksOptions = {},
): () => void {
  const root = options.root || document;
  const selector = options.selector || 'a[data-track]';
  const onClick = (event: Event) =>
    guard(undefined, () => {
      const target = event.target as Element | null;
      const link = target && target.closest ? (target.closest(selector) as HTMLAnchorElement | null) : null;
      if (!link || (event as MouseEvent).button > 1) return;
      const name = link.getAttribute('data-track') || 'click';
      const params: EventParams = { content_id: link.getAttribute('data-content-id') };
      if (event.defaultPrevented) {
        tracker.track(name, params);
        return;
      }
      const original = link.getAttribute('href');
      const wrapped = tracker.clickUrl(name, link.href, params);
      if (original === null || wrapped === link.href) return;
      link.href = wrapped;
      setTimeout(() => link.setAttribute('href', original), 0);
    });
  for (const type of EVENTS) root.addEventListener(type, onClick);
  return () => {
    for (const type of EVENTS) root.removeEventListener(type, onClick);
  };
}
