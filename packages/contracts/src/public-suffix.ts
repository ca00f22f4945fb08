import { parse } from 'tldts';

/**
 * True when `host` is itself an entry of the Public Suffix List, from its ICANN or its private
 * section (`com`, `co.uk`, `github.io`, `blogspot.com`): a name under which unrelated parties
 * register their own domains. Names matched only by the list's implicit rule for unknown top-level
 * labels (`example`, `localhost`) and IP addresses are not. Expects the registry's form (punycode);
 * case and a trailing dot do not matter.
 */
export function isPublicSuffix(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const parsed = parse(name, { allowPrivateDomains: true });
  return parsed.publicSuffix === name && (parsed.isIcann === true || parsed.isPrivate === true);
}

/** `*.` over a public suffix (`*.com`, `*.github.io`): it would allow every domain registered under it. */
export function isPublicSuffixWildcard(entry: string): boolean {
  return entry.startsWith('*.') && isPublicSuffix(entry.slice(2));
}
