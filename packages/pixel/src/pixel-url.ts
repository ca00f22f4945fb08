import type { EventParams } from './pixel';

/** Receives why something was not sent; see TrackerOptions.debug. */
export type Report = (message: string) => void;

const PIXEL_PATH = '/v1/v.gif';

/**
 * The ingest's limits (docs/api/events.md). Checked here because a beacon never sees the 400:
 * an event over a limit would vanish silently, so it is refused up front and reported instead.
 */
const MAX_OWNER_ID = 32;
const MAX_NAME = 128;
const MAX_URL = 2048;
const MAX_CONTENT_ID = 256;
const MAX_VID = 128;
const MAX_METADATA_KEYS = 20;
const MAX_METADATA_KEY = 64;
const MAX_METADATA_VALUE = 512;
// the measures: integers in plain digits up to these, never metadata (so not among its 20 keys)
const MEASURES = ['engaged_ms', 'scroll_depth', 'value'];
const MEASURE_MAX = [3600000, 100, 1e12];
const PLAIN_DIGITS = /^(0|[1-9]\d*)$/;
// the ingest stores a metadata name escaped ("." "%" NUL and a leading "$" take three characters)
// and applies the 64-character limit to that
const ESCAPED = /[%.\0]|^\$/g;

// the parameters the tracker sets itself: a caller's copy would override the owner, rename the
// event, or turn a beacon into a redirect
const RESERVED = ['owner_id', 'name', 'r'];
const OWNER_ID = /^\d+$/;

// the same rules as the ingest's check of `r`, on the raw text: absolute http(s) with a host, no
// spaces, control characters or backslashes (which URL parsers silently repair)
const REDIRECT_START = /^https?:\/\/[^/?#]/i;
const REDIRECT_FORBIDDEN = /[\u0000-\u0020\u007f\\]/;

/** The pixel's absolute address for an events service address, or "" when it is not http(s). */
export function pixelEndpoint(endpoint: unknown, base?: string): string {
  if (typeof endpoint !== 'string' || endpoint === '') return '';
  try {
    const url = new URL(endpoint, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
    const path = url.pathname.replace(/\/+$/, '');
    url.pathname = path.slice(-PIXEL_PATH.length) === PIXEL_PATH ? path : path + PIXEL_PATH;
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return '';
  }
}

export function isOwnerId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_OWNER_ID && OWNER_ID.test(value);
}

/** True when the ingest would redirect to `target` (else it answers 400 and the click breaks). */
export function isRedirectTarget(target: unknown): target is string {
  if (typeof target !== 'string' || target.length > MAX_URL) return false;
  if (!REDIRECT_START.test(target) || REDIRECT_FORBIDDEN.test(target)) return false;
  try {
    const url = new URL(target);
    return url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

const fail = (report: Report, message: string): undefined => {
  report(message);
  return undefined;
};

/**
 * The form/query text of one event, or undefined (reported) when the ingest would refuse it.
 * `params` are sent as given: `url` and `referrer` (cut to the ingest's limit), `content_id`, the
 * measures, and every other key as metadata. null and undefined values are left out;
 * values that are not strings, numbers or booleans, and the reserved keys, are skipped.
 */
export function eventQuery(ownerId: string, name: unknown, params: EventParams, report: Report): string | undefined {
  if (typeof name !== 'string' || name === '' || name.length > MAX_NAME) {
    return fail(report, `name: not 1..${MAX_NAME} characters`);
  }
  const query = new URLSearchParams({ owner_id: ownerId, name });
  let metadata = 0;
  for (const key of Object.keys(params)) {
    const value = params[key];
    if (value === null || value === undefined || key === '') continue;
    const type = typeof value;
    if (RESERVED.indexOf(key) !== -1 || (type !== 'string' && type !== 'number' && type !== 'boolean')) {
      report(`${key}: skipped (reserved or not a string, number, boolean)`);
      continue;
    }
    let text = String(value);
    const measure = MEASURES.indexOf(key);
    if (key === 'url' || key === 'referrer') {
      // the service keeps the canonical page URL, and only the host of a referrer
      text = text.slice(0, MAX_URL);
    } else if (key === 'content_id' || key === 'vid') {
      if (text.length > (key === 'vid' ? MAX_VID : MAX_CONTENT_ID)) return fail(report, `${key}: too long`);
    } else if (measure !== -1) {
      if (!PLAIN_DIGITS.test(text) || +text > MEASURE_MAX[measure]!) {
        return fail(report, `${key}: over the measure limits`);
      }
    } else if (
      ++metadata > MAX_METADATA_KEYS ||
      key.replace(ESCAPED, '%00').length > MAX_METADATA_KEY ||
      text.length > MAX_METADATA_VALUE
    ) {
      return fail(report, `${key}: over the metadata limits`);
    }
    query.append(key, text);
  }
  return query.toString();
}
