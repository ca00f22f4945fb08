import type { PixelParams } from './events-types';

/**
 * The pixel's fixed limits (docs/api/events.md); a unit test keeps them equal to the service's.
 * A pixel URL is fetched by a browser, not by us, so a 400 would be lost silently: refusing
 * bad parameters while building the URL is the only place the caller can learn about them.
 */
export const PIXEL_LIMITS = {
  nameMax: 128,
  urlMax: 2048,
  contentIdMax: 256,
  ownerIdMax: 32,
  metadataKeys: 20,
  metadataKeyMax: 64,
  metadataValueMax: 512,
  vidMax: 128,
  /** Characters of an explicit `utm_*` value (metadata allows longer values, these fields do not). */
  utmMax: 256,
  /** The largest value of each numeric parameter (integers from 0). */
  measureMax: { engaged_ms: 3_600_000, scroll_depth: 100, value: 1_000_000_000_000 },
} as const;

const MEASURES = ['engaged_ms', 'scroll_depth', 'value'] as const;
const NAMED = new Set(['owner_id', 'name', 'url', 'content_id', 'vid', 'referrer', 'r', ...MEASURES]);
const UTM = /^utm_(source|medium|campaign|content|term)$/;
const DIGITS = /^\d+$/;
// the service refuses these in `r` before parsing (parsers silently repair them)
const UNSAFE_TARGET_CHARS = /[\u0000-\u0020\u007f\\]/;

/** `{events_url}/v1/v.gif?...` for one event. Throws TypeError naming the bad parameter. */
export function buildPixelUrl(eventsUrl: string, params: PixelParams): string {
  return `${eventsUrl}/v1/v.gif?${pixelQuery(params).toString()}`;
}

/** A click-tracking link: the pixel stores the event, then redirects (302) to `target`. */
export function buildClickUrl(eventsUrl: string, params: PixelParams, target: string): string {
  checkTarget(target);
  const query = pixelQuery(params);
  query.set('r', target);
  return `${eventsUrl}/v1/v.gif?${query.toString()}`;
}

function pixelQuery(params: PixelParams): URLSearchParams {
  const { owner_id, name, url, content_id, vid, referrer, metadata = {} } = params;
  if (typeof owner_id !== 'string' || !DIGITS.test(owner_id) || owner_id.length > PIXEL_LIMITS.ownerIdMax) {
    throw new TypeError(`owner_id must be digits, at most ${PIXEL_LIMITS.ownerIdMax}`);
  }
  text('name', name, 1, PIXEL_LIMITS.nameMax);
  const query = new URLSearchParams({ owner_id, name });
  if (url !== undefined) query.set('url', pageUrl(url));
  if (referrer !== undefined) query.set('referrer', text('referrer', referrer, 0, PIXEL_LIMITS.urlMax));
  if (content_id !== undefined) query.set('content_id', text('content_id', content_id, 0, PIXEL_LIMITS.contentIdMax));
  if (vid !== undefined) query.set('vid', text('vid', vid, 1, PIXEL_LIMITS.vidMax));
  for (const measure of MEASURES) {
    const value = params[measure];
    if (value === undefined) continue;
    const max = PIXEL_LIMITS.measureMax[measure];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
      throw new TypeError(`${measure} must be an integer of 0..${max}`);
    query.set(measure, String(value));
  }
  const entries = Object.entries(metadata);
  if (entries.length > PIXEL_LIMITS.metadataKeys)
    throw new TypeError(`at most ${PIXEL_LIMITS.metadataKeys} metadata keys are stored`);
  for (const [key, value] of entries) {
    if (key === '' || NAMED.has(key)) throw new TypeError(`metadata key "${key}" is empty or a named pixel parameter`);
    if (escapedLength(key) > PIXEL_LIMITS.metadataKeyMax)
      throw new TypeError(
        `metadata key "${key.slice(0, 20)}..." is longer than ${PIXEL_LIMITS.metadataKeyMax} characters once escaped`,
      );
    const max = UTM.test(key) ? PIXEL_LIMITS.utmMax : PIXEL_LIMITS.metadataValueMax;
    query.set(key, text(`metadata.${key}`, value, 0, max));
  }
  return query;
}

/** "" (the service then takes the Referer) or an absolute http(s) URL: the service refuses anything else. */
function pageUrl(url: unknown): string {
  const value = text('url', url, 0, PIXEL_LIMITS.urlMax);
  if (value === '') return value;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
    throw new TypeError('url must be an absolute http or https URL');
  return value;
}

function text(field: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string' || value.length < min || value.length > max)
    throw new TypeError(`${field} must be a string of ${min}..${max} characters`);
  return value;
}

/** The service stores `%`, `.`, NUL and a leading `$` escaped (3 characters each). */
function escapedLength(key: string): number {
  return key.length + 2 * (key.match(/[%.\0]/g)?.length ?? 0) + (key.startsWith('$') ? 2 : 0);
}

function checkTarget(target: string): void {
  const refused = () =>
    new TypeError('target must be an absolute http(s) URL without credentials, spaces or backslashes');
  if (
    typeof target !== 'string' ||
    target.length > PIXEL_LIMITS.urlMax ||
    !/^https?:\/\/[^/?#]/i.test(target) ||
    UNSAFE_TARGET_CHARS.test(target)
  )
    throw refused();
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw refused();
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') throw refused();
}
