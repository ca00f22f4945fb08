import Joi from 'joi';
import { EVENT_LIMITS, canonicalPageUrl, type Attribution, type CanonicalPageUrl, type Measures } from '@cm/contracts';
import { ValidationError, type ErrorDetail } from '@cm/platform';
import { encodeMetadataKey } from '../storage/metadata-key';
import { attributionOf } from './pixel-attribution';
import { isMeasureName, measureFields, measureMessage, measuresOf, measuresWithinLimits } from './pixel-measures';
import type { RawParams } from './pixel-request';

export interface PixelEvent {
  owner_id: string;
  name: string;
  /** The canonical page URL (canonicalPageUrl), or "". */
  url: string;
  content_id: string;
  /** Keys already made safe for MongoDB (see storage/metadata-key.ts). */
  metadata: Record<string, string>;
  /** The publisher's own visitor id: only ever hashed, never stored, published or logged. */
  vid?: string;
  /** Only the measures the hit carried; absent when it carried none. */
  measures?: Measures;
  /** UTM values and the referring host (pixel-attribution.ts); absent when the hit carries none. */
  attribution?: Attribution;
}

/** The longest `vid` a hit may carry. */
const VID_MAX = EVENT_LIMITS.vidMax;

// No per-field .messages(): each one makes Joi merge preferences again on every request.
// Messages are written by detailFor below instead.
export const eventSchema = Joi.object({
  owner_id: Joi.string().pattern(/^\d+$/).max(EVENT_LIMITS.ownerIdMax).required(),
  name: Joi.string().max(EVENT_LIMITS.nameMax).required(),
  url: Joi.string().allow('').max(EVENT_LIMITS.urlMax),
  content_id: Joi.string().allow('').max(EVENT_LIMITS.contentIdMax),
  metadata: Joi.object()
    .pattern(Joi.string().max(EVENT_LIMITS.metadataKeyMax), Joi.string().allow('').max(EVENT_LIMITS.metadataValueMax))
    .max(EVENT_LIMITS.metadataKeys),
  vid: Joi.string().max(VID_MAX),
  // a host or a whole URL (only its host is kept): bounded like a URL before it is parsed
  referrer: Joi.string().allow('').max(EVENT_LIMITS.urlMax),
  ...measureFields,
}).prefs({ abortEarly: false, convert: false });

const DIGITS = /^\d+$/;
const text = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'string' && v.length >= min && v.length <= max;

/**
 * A check that implies eventSchema accepts the input, for the hot path: Joi's validation of
 * this object measured at a fifth of the pixel's throughput. Joi remains the authority: input
 * this check does not vouch for goes through Joi, which also words the errors. The unit tests
 * hold the two together (this never accepts what Joi refuses).
 */
export function withinLimits(input: Record<string, unknown>, metadata: [string, unknown][]): boolean {
  const { owner_id, name, url, content_id, vid, referrer } = input;
  if (!text(owner_id, 1, EVENT_LIMITS.ownerIdMax) || !DIGITS.test(owner_id as string)) return false;
  if (!text(name, 1, EVENT_LIMITS.nameMax)) return false;
  if (url !== undefined && !text(url, 0, EVENT_LIMITS.urlMax)) return false;
  if (content_id !== undefined && !text(content_id, 0, EVENT_LIMITS.contentIdMax)) return false;
  if (vid !== undefined && !text(vid, 1, VID_MAX)) return false;
  if (referrer !== undefined && !text(referrer, 0, EVENT_LIMITS.urlMax)) return false;
  if (!measuresWithinLimits(input)) return false;
  if (metadata.length > EVENT_LIMITS.metadataKeys) return false;
  for (const [key, value] of metadata) {
    if (key.length > EVENT_LIMITS.metadataKeyMax || !text(value, 0, EVENT_LIMITS.metadataValueMax)) return false;
  }
  return true;
}

const NAMED = new Set([
  'owner_id',
  'name',
  'url',
  'content_id',
  'vid',
  'referrer',
  'engaged_ms',
  'scroll_depth',
  'value',
  'r',
]);

function detailFor(d: Joi.ValidationErrorItem): ErrorDetail {
  const field = d.path.map(String).join('.');
  // every other rule a measure breaks (pattern, length, range) gets the one message that states them all
  if (isMeasureName(field) && d.type !== 'string.base' && d.type !== 'string.empty')
    return { field, message: measureMessage(field) };
  switch (d.type) {
    case 'any.required':
      return { field, message: `${field} is required` };
    case 'string.base':
      // the only way a query parameter is not a string: it was given more than once
      return { field, message: `${field} must be given once` };
    case 'string.empty':
      return { field, message: `${field} must not be empty` };
    case 'string.max':
      return { field, message: `${field} must be at most ${String(d.context?.limit)} characters` };
    case 'string.pattern.base':
      return { field, message: `${field} must be digits` };
    case 'object.max':
      return { field, message: `at most ${EVENT_LIMITS.metadataKeys} metadata parameters are stored` };
    case 'object.unknown':
      return {
        field,
        message: `metadata parameter names must be at most ${EVENT_LIMITS.metadataKeyMax} characters once escaped`,
      };
    default:
      return { field, message: d.message };
  }
}

/**
 * Validates the event parameters and builds the event. `url` is stored canonical
 * (canonicalPageUrl): a `url` that has no canonical form is refused; without one, the Referer's
 * canonical form is used, and a Referer without one gives "" rather than a refusal (the sender
 * does not choose it). Every parameter that is not a documented pixel parameter is metadata,
 * under an escaped key (`utm_*` too: see pixel-attribution.ts). Throws ValidationError naming
 * each bad field.
 */
export function parsePixelEvent(params: RawParams, referer: string | undefined): PixelEvent {
  const input: Record<string, unknown> = {};
  const entries: [string, unknown][] = [];
  for (const [key, value] of params) {
    if (key === 'r') continue;
    if (NAMED.has(key)) input[key] = value;
    else entries.push([encodeMetadataKey(key), value]);
  }
  const metadata = Object.fromEntries(entries) as Record<string, string>;
  input.metadata = metadata;
  // convert is off, so the validated input is the value
  if (!withinLimits(input, entries)) {
    const { error } = eventSchema.validate(input);
    if (error) throw new ValidationError('invalid event parameters', distinct(error.details.map(detailFor)));
  }
  const event = input as Omit<PixelEvent, 'url' | 'content_id'> & { url?: string; content_id?: string };
  const details: ErrorDetail[] = [];
  let page: CanonicalPageUrl | undefined;
  if (event.url) {
    const canonical = canonicalPageUrl(event.url);
    if (canonical.ok) page = canonical;
    else details.push({ field: 'url', message: `url ${canonical.message}` });
  } else if (referer) {
    const canonical = canonicalPageUrl(referer);
    if (canonical.ok) page = canonical;
  }
  const attribution = attributionOf(page?.utm, metadata, input.referrer, page?.host, details);
  if (details.length > 0) throw new ValidationError('invalid event parameters', details);
  const parsed: PixelEvent = {
    owner_id: event.owner_id,
    name: event.name,
    url: page === undefined ? '' : page.url,
    content_id: event.content_id ?? '',
    metadata,
    vid: event.vid,
  };
  const measures = measuresOf(input);
  if (measures !== undefined) parsed.measures = measures;
  if (attribution !== undefined) parsed.attribution = attribution;
  return parsed;
}

/** Each detail once: a measure that breaks several rules is named once. Linear, since a 64 KB beacon body can hold thousands of bad parameters. */
function distinct(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.field}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
