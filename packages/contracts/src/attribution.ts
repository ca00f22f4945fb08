import Joi from 'joi';

/**
 * Attribution: where a visitor came from. Six optional event fields: the five UTM values of the
 * campaign link (from the page URL's query, or given as pixel parameters) and the referring
 * site's host. Each is absent when empty, so events without attribution look as before.
 */
export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export type UtmValues = Partial<Record<UtmField, string>>;

/** @public the event fields of attribution, in their order (for reports that filter or group by them) */
export const ATTRIBUTION_FIELDS = [...UTM_FIELDS, 'referrer'] as const;
export type AttributionField = (typeof ATTRIBUTION_FIELDS)[number];
/** The optional attribution fields of an event (EventRecord, the stored event): absent when empty. */
export type Attribution = Partial<Record<AttributionField, string>>;

export const ATTRIBUTION_LIMITS = {
  /** Characters of one UTM value (UTM values are campaign names, not documents). */
  utmMax: 256,
  /** Characters of a host name (DNS: 253; a bracketed IPv6 address is shorter). */
  referrerMax: 253,
} as const;

export const isUtmField = (name: string): name is UtmField =>
  name === 'utm_source' ||
  name === 'utm_medium' ||
  name === 'utm_campaign' ||
  name === 'utm_content' ||
  name === 'utm_term';

/** At most `max` UTF-16 units, never ending inside a surrogate pair (a lone half would not survive BSON). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
// what may not stand in a bare host: a path, query, fragment, credentials or white space (a port is dropped)
const NOT_A_HOST = /[\s/?#@\\]/;

/**
 * The referring host of `input`: a host name (`news.example`, `Bücher.example`) or a whole URL
 * (`https://www.google.com/search?q=...`), of which only the host is kept (no port), lower-cased and in
 * punycode as WHATWG URL gives it, without a trailing dot. undefined when `input` holds no
 * valid host (then the pixel answers 400 naming `referrer`), including a result over 253
 * characters. A full referring URL is never kept: its path and query can carry what the reader
 * searched for or read.
 */
export function referrerHost(input: string): string | undefined {
  let candidate = input.trim();
  if (SCHEME.test(candidate)) {
    try {
      // any scheme with a host: `android-app://com.google.android.gm/` names the app as a host
      candidate = new URL(candidate).hostname;
    } catch {
      return undefined;
    }
  }
  if (candidate === '' || NOT_A_HOST.test(candidate)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(`http://${candidate}/`);
  } catch {
    return undefined;
  }
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') return undefined;
  const host = parsed.hostname.endsWith('.') ? parsed.hostname.slice(0, -1) : parsed.hostname;
  return host !== '' && host.length <= ATTRIBUTION_LIMITS.referrerMax ? host : undefined;
}

/** A host as referrerHost gives it: never a URL (no scheme, path, query, credentials), never upper case. */
const STORED_HOST = /^[^\s/?#@\\A-Z]+$/;

const utmValue = Joi.string().min(1).max(ATTRIBUTION_LIMITS.utmMax);

/** The Joi rules of the attribution fields of an event message (each optional; present means non-empty). */
export const attributionSchemaFields: Record<AttributionField, Joi.StringSchema> = {
  utm_source: utmValue,
  utm_medium: utmValue,
  utm_campaign: utmValue,
  utm_content: utmValue,
  utm_term: utmValue,
  referrer: Joi.string().min(1).max(ATTRIBUTION_LIMITS.referrerMax).pattern(STORED_HOST),
};

const isText = (v: unknown, max: number): boolean => typeof v === 'string' && v.length > 0 && v.length <= max;

/** 1 when `v` is a present UTM value, 0 when absent, -1 when present but not one. */
const utmSlot = (v: unknown): number => (v === undefined ? 0 : isText(v, ATTRIBUTION_LIMITS.utmMax) ? 1 : -1);

// Property names are written out rather than looped over in the two functions below: they run
// for every event (the consumer's decode, the pixel's hot path), and keyed access with a computed
// name cost several times more.

/**
 * The fast check's part for these fields (event-message.ts): how many of them `m` carries, or -1
 * when one is present but not what attributionSchemaFields accepts.
 */
export function plainAttributionCount(m: Record<string, unknown>): number {
  const source = utmSlot(m.utm_source);
  const medium = utmSlot(m.utm_medium);
  const campaign = utmSlot(m.utm_campaign);
  const content = utmSlot(m.utm_content);
  const term = utmSlot(m.utm_term);
  if (source < 0 || medium < 0 || campaign < 0 || content < 0 || term < 0) return -1;
  const count = source + medium + campaign + content + term;
  const referrer = m.referrer;
  if (referrer === undefined) return count;
  return isText(referrer, ATTRIBUTION_LIMITS.referrerMax) && STORED_HOST.test(referrer as string) ? count + 1 : -1;
}

/** Copies the attribution fields `from` has, non-empty, onto `to` (and no others: absent stays absent). */
export function copyAttribution(from: Readonly<Attribution>, to: Attribution): void {
  if (from.utm_source) to.utm_source = from.utm_source;
  if (from.utm_medium) to.utm_medium = from.utm_medium;
  if (from.utm_campaign) to.utm_campaign = from.utm_campaign;
  if (from.utm_content) to.utm_content = from.utm_content;
  if (from.utm_term) to.utm_term = from.utm_term;
  if (from.referrer) to.referrer = from.referrer;
}
