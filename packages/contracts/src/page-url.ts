import { ATTRIBUTION_LIMITS, cutText, isUtmField, type UtmValues } from './attribution';
import { isTrackingParameter } from './tracking-params';

/** The longest canonical page URL (the event's `url` limit). */
export const PAGE_URL_MAX = 2048;

export type PageUrlRefusalReason = 'not_a_url' | 'not_http' | 'too_long';

/** Why a string has no canonical page URL; `message` completes a sentence that starts with the field name. */
export interface PageUrlRefusal {
  ok: false;
  reason: PageUrlRefusalReason;
  message: string;
}

export interface CanonicalPageUrl {
  ok: true;
  /** The canonical form: an absolute http(s) URL, at most PAGE_URL_MAX characters, its own WHATWG `href`. */
  url: string;
  /**
   * The UTM values the query carried before they were removed (the first non-empty one of each,
   * decoded, cut to ATTRIBUTION_LIMITS.utmMax). Shared and frozen when there are none.
   */
  utm: Readonly<UtmValues>;
}

const NOT_A_URL: PageUrlRefusal = Object.freeze({
  ok: false,
  reason: 'not_a_url',
  message: 'must be an absolute http or https URL',
});
const NOT_HTTP: PageUrlRefusal = Object.freeze({
  ok: false,
  reason: 'not_http',
  message: 'must be an absolute http or https URL',
});
const TOO_LONG: PageUrlRefusal = Object.freeze({
  ok: false,
  reason: 'too_long',
  message: `must be at most ${PAGE_URL_MAX} characters once canonical`,
});
const NO_UTM: Readonly<UtmValues> = Object.freeze({});

/**
 * The one URL of a page, so that every way of arriving at it counts on it (docs/api/events.md,
 * "One page, one url"). WHATWG URL parsing first (scheme and host lower-cased, IDN hosts in
 * punycode, default port, dot segments, credentials dropped), then:
 * - the fragment is dropped, and a host's trailing dot;
 * - the path keeps its case; trailing slashes are dropped (the root stays `/`); escapes of
 *   unreserved characters are decoded, other escapes upper-cased, characters RFC 3986 does not
 *   allow in a path escaped;
 * - tracking parameters (`utm_*`, click ids: tracking-params.ts) are removed;
 * - the other parameters are decoded as a form (`+` is a space) and written again in one
 *   spelling: spaces as `+`, upper-case escapes, only `A-Z a-z 0-9 - . _ ~ ! $ ( ) * , / : ; @ ?`
 *   left as they are; sorted by name (values of a repeated name keep their order), an exact
 *   repeat of a pair dropped, an empty value written as the bare name;
 * - an empty query is dropped.
 * Idempotent: the canonical form of a canonical URL is itself. Never throws.
 */
export function canonicalPageUrl(input: string): CanonicalPageUrl | PageUrlRefusal {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return NOT_A_URL;
  }
  const scheme = url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:') return NOT_HTTP;
  let host = url.hostname;
  if (host.length > 1 && host.endsWith('.')) host = host.slice(0, -1);
  const port = url.port === '' ? '' : `:${url.port}`;
  const path = canonicalPath(url.pathname);
  let utm = NO_UTM;
  let query = '';
  const search = url.search;
  if (search.length > 1) {
    const found: UtmValues = {};
    query = canonicalQuery(search.slice(1), found);
    for (const _ in found) {
      utm = found;
      break;
    }
  }
  const canonical = `${scheme}//${host}${port}${path}${query === '' ? '' : '?'}${query}`;
  if (canonical.length > PAGE_URL_MAX) return TOO_LONG;
  return { ok: true, url: canonical, utm };
}

const HEX = '0123456789ABCDEF';
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const hexValue = (c: number): number => (c <= 57 ? c - 48 : (c | 0x20) - 87);
const escaped = (b: number): string => `%${HEX[b >> 4]}${HEX[b & 15]}`;

// WHATWG has escaped every non-ASCII character already; kept for direct callers, and never throws
// (a lone surrogate becomes U+FFFD where encodeURIComponent would throw)
const utf8 = new TextEncoder();
const utf8Escapes = (ch: string): string => Array.from(utf8.encode(ch), escaped).join('');

function table(literal: string): boolean[] {
  const t = new Array<boolean>(256).fill(false);
  for (let c = 48; c <= 57; c++) t[c] = true;
  for (let c = 65; c <= 90; c++) t[c] = t[c + 32] = true;
  for (const ch of literal) t[ch.charCodeAt(0)] = true;
  return t;
}

const UNRESERVED = table('-._~');
// RFC 3986 pchar and the segment separator: everything else a path holds is escaped
const PATH_LITERAL = table("-._~!$&'()*+,;=:@/");
// a query value's characters that are the same to every server literal or escaped
const QUERY_LITERAL = table('-._~!$()*,/:;@?');
const QUERY_SPELLING = Array.from({ length: 256 }, (_, b) =>
  b === 0x20 ? '+' : QUERY_LITERAL[b] ? String.fromCharCode(b) : escaped(b),
);

// what WHATWG leaves in a path that the canonical form writes otherwise
const PATH_NEEDS_WORK = /%|[^-\w.~!$&'()*+,;=:@/]|.\/$/;

function canonicalPath(path: string): string {
  if (!PATH_NEEDS_WORK.test(path)) return path;
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 37 && i + 2 < path.length && isHex(path.charCodeAt(i + 1)) && isHex(path.charCodeAt(i + 2))) {
      const b = hexValue(path.charCodeAt(i + 1)) * 16 + hexValue(path.charCodeAt(i + 2));
      out += UNRESERVED[b] ? String.fromCharCode(b) : escaped(b);
      i += 2;
    } else if (c < 128 && PATH_LITERAL[c]) {
      out += path[i];
    } else {
      // a lone `%`, or a character no path may hold raw (WHATWG leaves `|`, `^`, `[`, `]`)
      out += c < 128 ? escaped(c) : utf8Escapes(path[i] ?? '');
    }
  }
  let end = out.length;
  while (end > 1 && out.charCodeAt(end - 1) === 47) end--;
  return end === out.length ? out : out.slice(0, end);
}

/** One query name or value in the canonical spelling: decoded as a form, then written again. */
function respell(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 43) out += '+';
    else if (c === 37 && i + 2 < raw.length && isHex(raw.charCodeAt(i + 1)) && isHex(raw.charCodeAt(i + 2))) {
      out += QUERY_SPELLING[hexValue(raw.charCodeAt(i + 1)) * 16 + hexValue(raw.charCodeAt(i + 2))];
      i += 2;
    } else if (c < 128) out += QUERY_SPELLING[c];
    else out += utf8Escapes(raw[i] ?? '');
  }
  return out;
}

/** A form value as text: `+` is a space, malformed escapes stay as they are, bad UTF-8 becomes U+FFFD. */
function decodeFormValue(raw: string): string {
  return new URLSearchParams(`v=${raw}`).get('v') ?? '';
}

interface Pair {
  name: string;
  value: string;
}

const byName = (a: Pair, b: Pair): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function canonicalQuery(search: string, utm: UtmValues): string {
  const pairs: Pair[] = [];
  let sorted = true;
  for (const piece of search.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = respell(eq < 0 ? piece : piece.slice(0, eq));
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    const lower = name.toLowerCase();
    if (isTrackingParameter(lower)) {
      if (isUtmField(lower) && utm[lower] === undefined) {
        const value = decodeFormValue(rawValue);
        if (value !== '') utm[lower] = cutText(value, ATTRIBUTION_LIMITS.utmMax);
      }
      continue;
    }
    const value = respell(rawValue);
    if (name === '' && value === '') continue;
    const last = pairs[pairs.length - 1];
    if (last !== undefined && last.name > name) sorted = false;
    pairs.push({ name, value });
  }
  if (pairs.length === 0) return '';
  if (!sorted) pairs.sort(byName);
  let out = '';
  const seen = pairs.length > 1 ? new Set<string>() : undefined;
  for (const { name, value } of pairs) {
    const pair = value === '' ? name : `${name}=${value}`;
    if (seen) {
      if (seen.has(pair)) continue;
      seen.add(pair);
    }
    out += out === '' ? pair : `&${pair}`;
  }
  return out;
}
