import { EVENT_LIMITS } from '@cm/contracts';

export type RedirectCheck = { ok: true; location: string } | { ok: false; message: string };

// checked on the raw text because the WHATWG parser silently repairs what browsers would
// also repair: it drops tabs/CR/LF, turns `\` into `/` and trims spaces, which is how
// `https:\\evil.com` or `java\nscript:` tricks get through a parse-only check
const SCHEME_AND_AUTHORITY = /^https?:\/\/[^/?#]/i;
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f\\]/;

/**
 * `r` (CONVENTIONS section 4): only absolute http/https URLs with a host. Everything else
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
  return { ok: true, location: url.href };
}
