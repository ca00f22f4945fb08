import { ATTRIBUTION_LIMITS, UTM_FIELDS, referrerHost, type Attribution, type UtmValues } from '@cm/contracts';
import type { ErrorDetail } from '@cm/platform';

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
  let attribution: Attribution | undefined;
  for (const field of UTM_FIELDS) {
    const explicit = metadata[field];
    let value = pageUtm?.[field];
    if (explicit !== undefined && explicit !== '') {
      if (explicit.length > ATTRIBUTION_LIMITS.utmMax) {
        details.push({ field, message: `${field} must be at most ${ATTRIBUTION_LIMITS.utmMax} characters` });
        continue;
      }
      value = explicit;
    }
    if (value !== undefined) (attribution ??= {})[field] = value;
  }
  if (typeof referrer === 'string' && referrer !== '') {
    const host = referrerHost(referrer);
    if (host === undefined)
      details.push({
        field: 'referrer',
        message: `referrer must be a host name or a URL with one (at most ${ATTRIBUTION_LIMITS.referrerMax} characters once in punycode)`,
      });
    else if (host !== pageHost) (attribution ??= {}).referrer = host;
  }
  return attribution;
}
