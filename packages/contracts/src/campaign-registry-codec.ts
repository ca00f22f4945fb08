import {
  CAMPAIGN_RECORD_LIMITS as LIMITS,
  CAMPAIGN_TOKEN_PATTERN,
  type CampaignHeader,
  type CampaignLiveHeader,
  type CampaignPart,
  type CampaignRecord,
} from './campaign-registry';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeCampaignHeader(header: CampaignHeader): Uint8Array {
  return encoder.encode(JSON.stringify(header));
}

export function encodeCampaignPart(part: CampaignPart): Uint8Array {
  return encoder.encode(JSON.stringify(part));
}

type Fields = Record<string, unknown>;

const TARGET_SOURCES: readonly CampaignRecord['target_source'][] = ['campaign', 'owner', 'none'];
const OWNER_ID = /^\d{1,32}$/;
const COUNTRY = /^[A-Z]{2}$/;
const DIGEST = /^[0-9a-f]{64}$/;

const isCount = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** A real calendar day written YYYY-mm-dd. */
function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
}

/** A time zone the runtime knows (a report computes the campaign's day bounds in it). */
function isTimezone(value: unknown): value is string {
  if (!isText(value, LIMITS.timezoneLength)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** Every entry a URL within the length limit, or the whole list is refused: a partial list would restrict a report wrongly. */
function urlList(value: unknown, max: number): string[] | undefined {
  if (!Array.isArray(value) || value.length > max) return undefined;
  return value.every((url) => isText(url, LIMITS.urlLength)) ? (value as string[]) : undefined;
}

function parse(data: Uint8Array): Fields | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(data));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Never throws: a value that is not a valid header (a field of the wrong type, a size past the
 * limits, an unknown time zone) is undefined; a reader treats its key as holding no campaign.
 */
export function decodeCampaignHeader(data: Uint8Array): CampaignHeader | undefined {
  const v = parse(data);
  if (!v || typeof v.token !== 'string' || !CAMPAIGN_TOKEN_PATTERN.test(v.token)) return undefined;
  if (typeof v.owner_id !== 'string' || !OWNER_ID.test(v.owner_id) || !isCount(v.revision, Number.MAX_SAFE_INTEGER))
    return undefined;
  const { token, owner_id, revision } = v;
  if (v.deleted === true) return { token, owner_id, revision, deleted: true };
  if (!isCalendarDate(v.start_date) || !isCalendarDate(v.end_date) || !isTimezone(v.timezone)) return undefined;
  if (v.reach !== null && !isCount(v.reach, Number.MAX_SAFE_INTEGER)) return undefined;
  if (v.objective !== null && !isText(v.objective, LIMITS.objectiveLength)) return undefined;
  if (v.name !== undefined && (typeof v.name !== 'string' || v.name.length > LIMITS.nameLength)) return undefined;
  const countries = v.target_countries;
  if (!Array.isArray(countries) || countries.length > LIMITS.countries) return undefined;
  if (!countries.every((c) => typeof c === 'string' && COUNTRY.test(c))) return undefined;
  if (!TARGET_SOURCES.includes(v.target_source as CampaignRecord['target_source'])) return undefined;
  if (!isCount(v.url_count, LIMITS.urls) || typeof v.url_digest !== 'string' || !DIGEST.test(v.url_digest))
    return undefined;
  const header: CampaignLiveHeader = {
    token,
    owner_id,
    revision,
    ...(v.name === undefined ? {} : { name: v.name }),
    start_date: v.start_date,
    end_date: v.end_date,
    timezone: v.timezone,
    reach: v.reach,
    objective: v.objective,
    target_countries: countries as string[],
    target_source: v.target_source as CampaignRecord['target_source'],
    url_count: v.url_count,
    url_digest: v.url_digest,
  };
  if (v.urls !== undefined) {
    const urls = urlList(v.urls, LIMITS.urls);
    return urls && v.url_parts === undefined ? { ...header, urls } : undefined;
  }
  return isCount(v.url_parts, LIMITS.parts) && v.url_parts > 0 ? { ...header, url_parts: v.url_parts } : undefined;
}

/** Never throws: undefined unless the value is a part with the token, revision and index its key names. */
export function decodeCampaignPart(
  data: Uint8Array,
  key: { token: string; revision: number; index: number },
): CampaignPart | undefined {
  const v = parse(data);
  if (!v || v.token !== key.token || v.revision !== key.revision || v.index !== key.index) return undefined;
  const urls = urlList(v.urls, LIMITS.urls);
  return urls ? { token: key.token, revision: key.revision, index: key.index, urls } : undefined;
}
