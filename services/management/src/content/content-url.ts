import { createHash } from 'node:crypto';

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

/** Stable for the same normalised URL, so the item keeps its token when added again elsewhere or later. */
export function contentToken(normalizedUrl: string): string {
  return createHash('sha256').update(normalizedUrl).digest('base64url').slice(0, TOKEN_LENGTH);
}
