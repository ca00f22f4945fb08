import { canonicalPageUrl } from '@cm/contracts';

/**
 * The values a `url` filter matches: each given value's canonical form (events are stored under
 * it since page URLs are canonical) and the value as given (events stored before hold the URL as
 * it was sent), without repeats. A value without a canonical form (not an absolute http(s) URL,
 * "") is matched as given only.
 */
export function urlFilterValues(given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const values = new Set<string>();
  for (const value of given) {
    const canonical = canonicalPageUrl(value);
    if (canonical.ok) values.add(canonical.url);
    values.add(value);
  }
  return [...values];
}
