import { eventQuery, isOwnerId, isRedirectTarget, pixelEndpoint, type Report } from './pixel-url';
import { measureEngagement } from './measure-engagement';
import { sendEvent } from './send-event';
import { trackLinks } from './track-links';
import { storedVisitorId } from './visitor-id';

// The public types live in this file so that dist/pixel.d.ts stands alone (no relative imports
// for a consumer's module resolution to trip over).

/** Numbers and booleans are sent as text; null and undefined are left out. */
export type ParamValue = string | number | boolean | null | undefined;

/**
 * `url` (defaults to the page's address), `referrer` (defaults to the referring page's host when
 * it is another host), `content_id`, the measures `engaged_ms`, `scroll_depth` and `value`
 * (integers, not metadata), and any other key is stored as metadata.
 */
export interface EventParams {
  url?: ParamValue;
  referrer?: ParamValue;
  content_id?: ParamValue;
  [metadata: string]: ParamValue;
}

export interface TrackerOptions {
  /** The events service address, e.g. "https://events.example.com" ("/v1/v.gif" is added unless present). */
  endpoint: string;
  /** Your owner_id: the `unique_id` the management API gave you (digits, as a string). */
  ownerId: string;
  /** Parameters sent with every event; a call's own parameters win. */
  defaults?: EventParams;
  /** "beacon" (default): navigator.sendBeacon, else an image. "image": always a GET through an image. */
  transport?: 'beacon' | 'image';
  /**
   * A pseudonymous id of the visitor you already have (a first-party cookie, a login id; never an
   * e-mail address), 1..128 characters: sent as `vid`. The service stores only a keyed hash of it.
   */
  visitorId?: string;
  /**
   * true: when no visitorId is given, keep a random id in this site's localStorage and send it as
   * `vid`, so a visitor is recognised across days. Off by default (check your consent rules).
   */
  persistVisitor?: boolean;
  /** Told why an event was not sent or a parameter was skipped. The tracker never throws. */
  debug?: (message: string) => void;
}

export interface TrackLinksOptions {
  /** Which links to count; default `a[data-track]`. */
  selector?: string;
  /** Where to listen for clicks; default `document`. */
  root?: Document | Element;
}

export interface Tracker {
  /** Sends an event; true when the browser accepted the request. Never throws. */
  track(name: string, params?: EventParams): boolean;
  /** The pixel URL of an event (for an <img>), or "" when it cannot be built. */
  pixelUrl(name: string, params?: EventParams): string;
  /**
   * A link that records the event and redirects (302) to `target`. When the event cannot be
   * built, or `target` is not an absolute http(s) URL, returns `target` itself: links never break.
   */
  clickUrl(name: string, target: string, params?: EventParams): string;
  /** Counts clicks on matching links (see README); returns a function that stops it. */
  trackLinks(options?: TrackLinksOptions): () => void;
}

const pageUrl = (): string | undefined => (typeof location !== 'undefined' ? location.href : undefined);

// The page: only an http(s) address, which the service stores canonical (an about:blank or
// file: page sends none, and the service falls back to the Referer instead of refusing the hit).
const pageParam = (): string | undefined => {
  const href = pageUrl();
  return href && /^https?:/i.test(href) ? href : undefined;
};

// The referring site: the host of document.referrer (never its path or query, which can carry
// what the reader searched for), and only when it is another host than this page's.
const referrerParam = (): string | undefined => {
  try {
    const host = new URL(document.referrer).hostname;
    return host && host !== location.hostname ? host : undefined;
  } catch {
    // no document (server rendering), or no referrer (""): none
    return undefined;
  }
};

/** A tracker for one owner. Bad options give a tracker that sends nothing (and says so to `debug`). */
export function createTracker(options: TrackerOptions): Tracker {
  let debug: TrackerOptions['debug'];
  const report: Report = (message) => {
    try {
      if (typeof debug === 'function') debug(`pixel: ${message}`);
    } catch {
      // a throwing debug hook is the host page's bug, not a reason to throw into it
    }
  };
  const guard = <T>(fallback: T, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      report(String(err));
      return fallback;
    }
  };

  const settings = guard(undefined, () => {
    debug = options.debug;
    const endpoint = pixelEndpoint(options.endpoint, pageUrl());
    if (!endpoint) report('endpoint: not an http(s) URL');
    else if (!isOwnerId(options.ownerId)) report('ownerId: not a string of digits');
    else {
      let vid = options.visitorId;
      if (vid !== undefined && (typeof vid !== 'string' || vid === '' || vid.length > 128)) {
        report('visitorId: not 1..128 characters, not sent');
        vid = undefined;
      }
      if (vid === undefined && options.persistVisitor === true) vid = storedVisitorId();
      return { endpoint, ownerId: options.ownerId, defaults: options.defaults, transport: options.transport, vid };
    }
  });

  const query = (name: unknown, params: unknown): string | undefined => {
    if (!settings) {
      report('not configured');
      return undefined;
    }
    const all: EventParams = { url: pageParam(), referrer: referrerParam() };
    for (const extra of [settings.defaults, params]) {
      if (!extra || typeof extra !== 'object') continue;
      for (const key of Object.keys(extra)) {
        const value = (extra as EventParams)[key];
        if (value !== null && value !== undefined) all[key] = value;
      }
    }
    // a call that names its own vid wins, like any other parameter
    if (settings.vid !== undefined && all.vid === undefined) all.vid = settings.vid;
    return eventQuery(settings.ownerId, name, all, report);
  };

  const tracker: Tracker = {
    track: (name, params) =>
      guard(false, () => {
        const q = query(name, params);
        return q !== undefined && settings !== undefined && sendEvent(settings.endpoint, q, settings.transport);
      }),
    pixelUrl: (name, params) =>
      guard('', () => {
        const q = query(name, params);
        return q !== undefined && settings ? `${settings.endpoint}?${q}` : '';
      }),
    clickUrl: (name, target, params) =>
      guard(target, () => {
        if (!isRedirectTarget(target)) {
          report('target: not an absolute http(s) URL');
          return target;
        }
        // already a click URL (a link tracked twice): wrapping it again would count the click twice
        if (settings && target.indexOf(`${settings.endpoint}?`) === 0) return target;
        const url = tracker.pixelUrl(name, params);
        return url ? `${url}&r=${encodeURIComponent(target)}` : target;
      }),
    trackLinks: (linkOptions) =>
      guard(
        () => undefined,
        () => trackLinks(tracker, guard, linkOptions),
      ),
  };
  return tracker;
}

/**
 * Measures engaged time and scroll depth on this page view and sends them through `tracker` as
 * `engagement` events (with `params`) when the page is hidden or left (see README, "Attention").
 * Returns a function that sends what is new and stops. Never throws; in the <script> builds it
 * comes with pixel-engagement.min.js, so pages that do not measure attention do not load it.
 */
export function trackEngagement(tracker: Pick<Tracker, 'track'>, params?: EventParams): () => void {
  const guard = <T>(fallback: T, fn: () => T): T => {
    try {
      return fn();
    } catch {
      // a missing browser API or a hostile tracker: measuring stops, the page goes on
      return fallback;
    }
  };
  return guard(
    () => undefined,
    () => measureEngagement((name, p) => tracker.track(name, p), guard, params),
  );
}
