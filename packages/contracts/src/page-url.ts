import { ATTRIBUTION_LIMITS, cutText, isUtmField, type UtmField, type UtmValues } from './attribution';
import { isTrackingParameter } from './tracking-params';

/** The longest canonical page URL (the event's `url` limit). */
export const PAGE_URL_MAX = 2048;

/**
 * `not_a_url`: not an absolute URL at all; `not_http`: another scheme (`javascript:`, `data:`,
 * `ftp:`, `about:`); `too_long`: over PAGE_URL_MAX once canonical.
 * @public for callers that tell the reasons apart (the pixel and management only use the message)
 */
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
  /** Its host name: lower case, punycode, no port, no trailing dot; an IPv6 address in brackets. */
  host: string;
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
    source = medium = campaign = content = term = undefined;
    query = canonicalQuery(search.slice(1));
    utm = foundUtm();
  }
  const canonical = `${scheme}//${host}${port}${path}${query === '' ? '' : '?'}${query}`;
  if (canonical.length > PAGE_URL_MAX) return TOO_LONG;
  return { ok: true, url: canonical, host, utm };
}

const HEX = '0123456789ABCDEF';
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const hexValue = (c: number): number => (c <= 57 ? c - 48 : (c | 0x20) - 87);
const escaped = (b: number): string => `%${HEX[b >> 4]}${HEX[b & 15]}`;

// WHATWG has escaped every non-ASCII character already; kept for direct callers, and never throws
// (a lone surrogate becomes U+FFFD where encodeURIComponent would throw)
const utf8 = new TextEncoder();
const utf8Escapes = (ch: string): string => Array.from(utf8.encode(ch), escaped).join('');

/** 1 for each byte written as it is: letters, digits and `literal`. */
function table(literal: string): Uint8Array {
  const t = new Uint8Array(256);
  for (let c = 48; c <= 57; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = t[c + 32] = 1;
  for (const ch of literal) t[ch.charCodeAt(0)] = 1;
  return t;
}

const UNRESERVED = table('-._~');
// RFC 3986 pchar and the segment separator: everything else a path holds is escaped
const PATH_LITERAL = table("-._~!$&'()*+,;=:@/");
// a query value's characters that are the same to every server literal or escaped
const QUERY_LITERAL = table('-._~!$()*,/:;@?');
const QUERY_SPELLING = Array.from({ length: 256 }, (_, b) =>
  b === 0x20 ? '+' : QUERY_LITERAL[b] === 1 ? String.fromCharCode(b) : escaped(b),
);

function canonicalPath(path: string): string {
  // `%` is not in PATH_LITERAL: a path with escapes is respelled
  const out = only(path, PATH_LITERAL) ? path : respellPath(path);
  let end = out.length;
  while (end > 1 && out.charCodeAt(end - 1) === 47) end--;
  return end === out.length ? out : out.slice(0, end);
}

function respellPath(path: string): string {
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
  return out;
}

// a query name or value already in the canonical spelling (the common case: nothing to rewrite)
const QUERY_AS_IS = table('-._~!$()*,/:;@?+');

/** A loop over a table: a regular expression costs more to call than to run on strings this short. */
function only(text: string, allowed: Uint8Array): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || !allowed[c]) return false;
  }
  return true;
}

/** One query name or value in the canonical spelling: decoded as a form, then written again. */
function respell(raw: string): string {
  if (only(raw, QUERY_AS_IS)) return raw;
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
  if (only(raw, QUERY_AS_IS) && raw.indexOf('+') < 0) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // URLSearchParams never throws: it keeps malformed escapes and replaces bad UTF-8
    return new URLSearchParams(`v=${raw}`).get('v') ?? '';
  }
}

// The UTM values of the query being canonicalised (single-threaded): one variable each and
// property names written out, because keyed access with a computed field name was a third of
// the cost of a campaign link.
let source: string | undefined;
let medium: string | undefined;
let campaign: string | undefined;
let content: string | undefined;
let term: string | undefined;

const utmValue = (raw: string): string | undefined => {
  const value = decodeFormValue(raw);
  return value === '' ? undefined : cutText(value, ATTRIBUTION_LIMITS.utmMax);
};

/** Keeps the first non-empty value of each UTM field. */
function noteUtm(field: UtmField, raw: string): void {
  switch (field) {
    case 'utm_source':
      source ??= utmValue(raw);
      break;
    case 'utm_medium':
      medium ??= utmValue(raw);
      break;
    case 'utm_campaign':
      campaign ??= utmValue(raw);
      break;
    case 'utm_content':
      content ??= utmValue(raw);
      break;
    case 'utm_term':
      term ??= utmValue(raw);
      break;
  }
}

function foundUtm(): Readonly<UtmValues> {
  if (
    source === undefined &&
    medium === undefined &&
    campaign === undefined &&
    content === undefined &&
    term === undefined
  )
    return NO_UTM;
  const utm: UtmValues = {};
  if (source !== undefined) utm.utm_source = source;
  if (medium !== undefined) utm.utm_medium = medium;
  if (campaign !== undefined) utm.utm_campaign = campaign;
  if (content !== undefined) utm.utm_content = content;
  if (term !== undefined) utm.utm_term = term;
  return utm;
}

const hasUpperCase = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
};

/**
 * The parameters in canonical spelling, tracking removed, sorted by name (stable: the values of a
 * repeated name keep their order), exact repeats dropped. Names and values are kept in two arrays
 * and sorted through an index: on the hot path this is half the cost of an object per pair.
 */
function canonicalQuery(search: string): string {
  const names: string[] = [];
  const values: string[] = [];
  let sorted = true;
  let previous = '';
  const length = search.length;
  for (let start = 0; start < length;) {
    let end = search.indexOf('&', start);
    if (end < 0) end = length;
    let eq = search.indexOf('=', start);
    if (eq < 0 || eq > end) eq = end;
    if (end > start) {
      const name = respell(search.slice(start, eq));
      const lower = hasUpperCase(name) ? name.toLowerCase() : name;
      if (isTrackingParameter(lower)) {
        if (isUtmField(lower)) noteUtm(lower, eq < end ? search.slice(eq + 1, end) : '');
      } else {
        const value = eq < end ? respell(search.slice(eq + 1, end)) : '';
        if (name !== '' || value !== '') {
          if (previous > name) sorted = false;
          previous = name;
          names.push(name);
          values.push(value);
        }
      }
    }
    start = end + 1;
  }
  if (names.length === 0) return '';
  const order = sorted ? undefined : names.map((_, i) => i).sort((a, b) => byName(names, a, b));
  let out = '';
  for (let k = 0; k < names.length; k++) {
    const i = order === undefined ? k : order[k]!;
    const name = names[i]!;
    const value = values[i]!;
    if (isRepeat(names, values, order, k, name, value)) continue;
    if (out !== '') out += '&';
    out += value === '' ? name : name + '=' + value;
  }
  return out;
}

function byName(names: string[], a: number, b: number): number {
  const x = names[a]!;
  const y = names[b]!;
  return x < y ? -1 : x > y ? 1 : a - b;
}

/** Whether an earlier pair (in sorted order) has the same name and value: the same name sorts next to it. */
function isRepeat(
  names: string[],
  values: string[],
  order: number[] | undefined,
  k: number,
  name: string,
  value: string,
): boolean {
  for (let j = k - 1; j >= 0; j--) {
    const p = order === undefined ? j : order[j]!;
    if (names[p] !== name) return false;
    if (values[p] === value) return true;
  }
  return false;
}
