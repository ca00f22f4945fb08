import { createHash } from 'node:crypto';
import { canonicalPageUrl } from '@cm/contracts';
import type { ContentDocument } from './content-document';

export const URL_MAX_LENGTH = 2048;

/** 22 base64url characters = 132 bits of SHA-256 (tokens must carry at least 128), URL-safe. */
const TOKEN_LENGTH = 22;

/**
 * The URL as a browser would show it after pasting: WHATWG parsing lower-cases scheme and host,
 * drops a default port, punycodes the host and percent-encodes what needs it; path, query and
 * fragment are kept as given. Only absolute http(s) URLs with a host and no credentials qualify.
 */
export function normalizeContentUrl(input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname || url.username || url.password) return undefined;
  return url.href.length <= URL_MAX_LENGTH ? url.href : undefined;
}

/**
 * The page's canonical URL, the same form the events service stores on every event
 * (canonicalPageUrl: tracking parameters, fragment, trailing slash, parameter order and spelling
 * never tell pages apart): two items of a campaign are the same page exactly when theirs are
 * equal (compared through their page keys, see pageKeyOf). undefined when the URL has none (over
 * 2048 characters once canonical).
 */
export function canonicalContentUrl(url: string): string | undefined {
  const canonical = canonicalPageUrl(url);
  return canonical.ok ? canonical.url : undefined;
}

/**
 * An item's page key: the stored one, or, for an item stored before it existed and not yet given
 * one by the start-up backfill, computed from its URL.
 */
export function pageKeyOf(item: Pick<ContentDocument, 'url' | 'page_key'>): string {
  return item.page_key ?? contentToken(canonicalContentUrl(item.url) ?? item.url);
}

/** The item of `content` that is the same page as `item` (same page key, or the same token). */
export function samePage(
  content: readonly Pick<ContentDocument, 'token' | 'url' | 'page_key'>[],
  item: Pick<ContentDocument, 'token' | 'page_key'>,
): string | undefined {
  return content.find((c) => c.token === item.token || pageKeyOf(c) === item.page_key)?.token;
}

/**
 * Derived from the canonical URL, so it is stable: the same page gets the same token whichever
 * way its URL was pasted, in any campaign, now or later. (Items stored before keep the token they
 * got from their URL as pasted: a token is an item's identity in the API.)
 */
export function contentToken(canonicalUrl: string): string {
  return createHash('sha256').update(canonicalUrl).digest('base64url').slice(0, TOKEN_LENGTH);
}
