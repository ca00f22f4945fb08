import { ATTRIBUTION_LIMITS, referrerHost, type Attribution, type UtmValues } from '@cm/contracts';
import type { ErrorDetail } from '@cm/platform';

// Property names are written out rather than looped over: keyed access with a computed name was
// a measurable part of a hit's cost on the pixel's hot path.

/**
 * The attribution of one hit (docs/api/events.md, "Attribution"):
 * - each UTM field is the explicit pixel parameter when the hit gives it non-empty, else the page
 *   URL's own value (taken before the canonical URL dropped it). Explicit `utm_*` parameters are
 *   metadata as well, as they were before these fields existed, so `metadata` is where they are
 *   read from (`utm_*` needs no escaping: its key is its name);
 * - `referrer` is the referring site's host: the `referrer` parameter, a host or a whole URL of
 *   which only the host is kept, and nothing when it is the page's own host.
 * Returns undefined when the hit carries none. A bad explicit value adds a detail naming it.
 */
export function attributionOf(
  pageUtm: Readonly<UtmValues> | undefined,
  metadata: Readonly<Record<string, string>>,
  referrer: unknown,
  pageHost: string | undefined,
  details: ErrorDetail[],
): Attribution | undefined {
  const source = utm('utm_source', metadata.utm_source, pageUtm?.utm_source, details);
  const medium = utm('utm_medium', metadata.utm_medium, pageUtm?.utm_medium, details);
  const campaign = utm('utm_campaign', metadata.utm_campaign, pageUtm?.utm_campaign, details);
  const content = utm('utm_content', metadata.utm_content, pageUtm?.utm_content, details);
  const term = utm('utm_term', metadata.utm_term, pageUtm?.utm_term, details);
  let host: string | undefined;
  if (typeof referrer === 'string' && referrer !== '') {
    host = referrerHost(referrer);
    if (host === undefined)
      details.push({
        field: 'referrer',
        message: `referrer must be a host name or a URL with one (at most ${ATTRIBUTION_LIMITS.referrerMax} characters once in punycode)`,
      });
    else if (host === pageHost) host = undefined;
  }
  if (
    source === undefined &&
    medium === undefined &&
    campaign === undefined &&
    content === undefined &&
    term === undefined &&
    host === undefined
  )
    return undefined;
  const attribution: Attribution = {};
  if (source !== undefined) attribution.utm_source = source;
  if (medium !== undefined) attribution.utm_medium = medium;
  if (campaign !== undefined) attribution.utm_campaign = campaign;
  if (content !== undefined) attribution.utm_content = content;
  if (term !== undefined) attribution.utm_term = term;
  if (host !== undefined) attribution.referrer = host;
  return attribution;
}

/** The explicit value when given non-empty (a detail when it is too long), else the page URL's. */
function utm(
  field: string,
  explicit: string | undefined,
  fromPage: string | undefined,
  details: ErrorDetail[],
): string | undefined {
  if (explicit === undefined || explicit === '') return fromPage;
  if (explicit.length <= ATTRIBUTION_LIMITS.utmMax) return explicit;
  details.push({ field, message: `${field} must be at most ${ATTRIBUTION_LIMITS.utmMax} characters` });
  return undefined;
}
