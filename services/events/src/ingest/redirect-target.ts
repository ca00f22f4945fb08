import { EVENT_LIMITS, isRedirectHostAllowed } from '@cm/contracts';
import type { OwnerLookup } from '../registry/owner-registry-watcher';

export type RedirectCheck = { ok: true; location: string; host: string } | { ok: false; message: string };

// checked on the raw text because the WHATWG parser silently repairs what browsers would
// also repair: it drops tabs/CR/LF, turns `\` into `/` and trims spaces, which is how
// `https:\\evil.com` or `java\nscript:` tricks get through a parse-only check
const SCHEME_AND_AUTHORITY = /^https?:\/\/[^/?#]/i;
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f\\]/;

/**
 * `r`: only absolute http/https URLs with a host. Everything else
 * (javascript:, data:, relative, protocol-relative, backslashes, control characters or spaces,
 * user:password@ prefixes that disguise the real host) is refused. The Location header carries
 * the parser's normalised href, which is plain ASCII (punycode host, percent-encoded path).
 */
export function checkRedirectTarget(raw: string): RedirectCheck {
  if (raw.length === 0 || raw.length > EVENT_LIMITS.urlMax) {
    return { ok: false, message: `must be an absolute http or https URL of at most ${EVENT_LIMITS.urlMax} characters` };
  }
  if (!SCHEME_AND_AUTHORITY.test(raw) || FORBIDDEN_CHARS.test(raw)) {
    return { ok: false, message: 'must be an absolute http or https URL' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute http or https URL' };
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return { ok: false, message: 'must be an absolute http or https URL' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must not contain user credentials' };
  }
  return { ok: true, location: url.href, host: url.hostname };
}

/** What a pixel hit's `r` asks for: nothing, a redirect the owner allows, a refusal (400), or no answer yet (registry not loaded: 503). */
export type RedirectDecision =
  | { kind: 'none' }
  | { kind: 'allowed'; location: string }
  | { kind: 'refused'; message: string }
  | { kind: 'undecided' };

const NONE: RedirectDecision = { kind: 'none' };
// one refusal for an unknown owner and for a host the owner does not allow, naming neither the
// owner's state nor the host: a different answer would tell which owner ids exist
const NOT_ALLOWED: RedirectDecision = { kind: 'refused', message: 'r is only followed to a host this owner_id allows' };

/**
 * `r` is followed only to an absolute http(s) URL whose host the owner
 * allows (the hosts of the owner's content URLs plus the owner's explicit list, carried in the
 * owner registry record). Anything else, an unknown owner included, is refused: the pixel is
 * never an open redirect. Both refusals are decided in memory before any I/O: they differ in
 * time by at most a scan of the owner's (at most 1000) hosts, microseconds under network jitter.
 */
export function decideRedirect(
  r: string | string[] | undefined,
  ownerId: string | string[] | undefined,
  owners: OwnerLookup,
): RedirectDecision {
  if (r === undefined) return NONE;
  if (typeof r !== 'string') return { kind: 'refused', message: 'r must be given once' };
  const target = checkRedirectTarget(r);
  if (!target.ok) return { kind: 'refused', message: `r ${target.message}` };
  if (!owners.isReady()) return { kind: 'undecided' };
  const hosts = typeof ownerId === 'string' ? owners.redirectHosts(ownerId) : undefined;
  if (hosts === undefined || !isRedirectHostAllowed(hosts, target.host)) return NOT_ALLOWED;
  return { kind: 'allowed', location: target.location };
}
