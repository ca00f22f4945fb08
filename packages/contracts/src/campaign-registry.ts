import { createHash } from 'node:crypto';

/**
 * The registry of campaigns, shared between the services over NATS only. Management writes it
 * (a record per campaign, a tombstone when the campaign or its owner is deleted); the events
 * service watches it and keeps the live campaigns in memory, so a report can be restricted to a
 * campaign without reading management's collections. A JetStream KV bucket: it survives restarts,
 * and a new watcher replays the current state before live updates.
 */
export interface CampaignRecord {
  /** The campaign token (URL-safe: letters, digits, `-`, `_`): also the record's KV key. */
  token: string;
  /** unique_id of the user owning the campaign (the owner_id of the Events API). */
  owner_id: string;
  /**
   * Monotonic per campaign: management increments it in the same write as every change of the
   * campaign or its content, and right after a change of the owner's time zone or geography. A
   * writer never replaces a stored record of an equal or higher revision (no resurrection).
   */
  revision: number;
  deleted?: false;
  name?: string;
  /**
   * The campaign's content URLs in canonical form (one page, one URL): unique, sorted by UTF-16
   * code units. Any number up to CAMPAIGN_RECORD_LIMITS.urls (past the inline limit they travel
   * in parts under their own keys; see toCampaignValues).
   */
  urls: readonly string[];
  /** YYYY-mm-dd, both days included, in `timezone`. */
  start_date: string;
  end_date: string;
  /** The owner's IANA time zone ("UTC" when the owner has none, as management's content state uses). */
  timezone: string;
  /** The campaign's reach goal (unique visitors), null when not set. */
  reach: number | null;
  objective: string | null;
  /** ISO 3166-1 alpha-2 codes, sorted: the campaign's target geography, else its owner's (see target_source). */
  target_countries: readonly string[];
  /** Where target_countries come from: the campaign, the owner (the campaign has none), or nowhere. */
  target_source: 'campaign' | 'owner' | 'none';
}

/**
 * A deleted campaign (or one of a deleted owner), kept so that no older put can bring it back.
 * @public the wire format's other half, for readers that keep tombstones
 */
export interface CampaignTombstone {
  token: string;
  owner_id: string;
  revision: number;
  deleted: true;
}

export type CampaignRegistryValue = CampaignRecord | CampaignTombstone;

export const CAMPAIGN_RECORD_LIMITS = {
  /** Above the largest content quota management accepts (QUOTA_CONTENT_PER_CAMPAIGN at most 5000). */
  urls: 10_000,
  /** Management stores URLs of at most 2048 characters; room for a canonical form that is longer. */
  urlLength: 4096,
  nameLength: 1000,
  objectiveLength: 100,
  timezoneLength: 64,
  countries: 300,
  /** Encoded URL bytes kept inside the main value; past it the URLs go into parts. */
  inlineUrlBytes: 256 * 1024,
  /** Encoded URL bytes of one part: a value stays far below NATS's default 1 MB payload. */
  partBytes: 256 * 1024,
  /** 10,000 URLs of 4096 characters, each JSON-escaped at worst to twice that, fit in 400 parts. */
  parts: 400,
} as const;

/** The main value under a live campaign's key: the record, with its URLs inline or as a count of parts. */
export interface CampaignLiveHeader extends Omit<CampaignRecord, 'urls'> {
  url_count: number;
  /** campaignUrlDigest of the URLs: what reconciliation compares, and what assembling checks. */
  url_digest: string;
  /** The URLs when they fit inline; absent when they are in `url_parts` parts. */
  urls?: readonly string[];
  url_parts?: number;
}

/** The value under a campaign's key. */
export type CampaignHeader = CampaignLiveHeader | CampaignTombstone;

/** One slice of a large campaign's URLs, under campaignPartKey(token, revision, index). */
export interface CampaignPart {
  token: string;
  revision: number;
  index: number;
  urls: string[];
}

/** Campaign tokens are base64url: valid KV key tokens, never containing the `.` that separates a part key. */
export const CAMPAIGN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function campaignKey(token: string): string {
  return token;
}

/** Parts are keyed by revision, so writing a new revision's parts never touches the parts of the record in place. */
export function campaignPartKey(token: string, revision: number, index: number): string {
  return `${token}.${revision}.${index}`;
}

/** KV key filters: every record (one key token), every part (three). */
export const CAMPAIGN_RECORD_KEYS = '*';
export const CAMPAIGN_PART_KEYS = '*.*.*';

export function parseCampaignPartKey(key: string): { token: string; revision: number; index: number } | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})\.(\d{1,16})\.(\d{1,4})$/.exec(key);
  if (!match || !Number.isSafeInteger(Number(match[2]))) return undefined;
  return { token: match[1]!, revision: Number(match[2]), index: Number(match[3]) };
}

/** SHA-256 (hex) of the URLs in order, one per line (a canonical URL holds no line break). */
export function campaignUrlDigest(urls: readonly string[]): string {
  const hash = createHash('sha256');
  for (const url of urls) hash.update(url).update('\n');
  return hash.digest('hex');
}

/** JSON bytes of one URL in a list, with its separator. */
const encodedSize = (url: string) => Buffer.byteLength(JSON.stringify(url)) + 1;

/**
 * What management writes for a record: the header, and the parts that must be in the bucket
 * before it (none while the URLs fit inline). Throws on a record past the limits: that is a bug
 * of the writer, never input of a reader.
 */
export function toCampaignValues(value: CampaignRegistryValue): { header: CampaignHeader; parts: CampaignPart[] } {
  if (value.deleted) return { header: value, parts: [] };
  const { token, owner_id, revision } = value;
  if (value.urls.length > CAMPAIGN_RECORD_LIMITS.urls) throw new RangeError(`campaign ${token}: too many URLs`);
  const header: CampaignLiveHeader = {
    token,
    owner_id,
    revision,
    ...(value.name === undefined ? {} : { name: value.name }),
    start_date: value.start_date,
    end_date: value.end_date,
    timezone: value.timezone,
    reach: value.reach,
    objective: value.objective,
    target_countries: [...value.target_countries],
    target_source: value.target_source,
    url_count: value.urls.length,
    url_digest: campaignUrlDigest(value.urls),
  };
  const sizes = value.urls.map(encodedSize);
  if (sizes.reduce((a, b) => a + b, 0) <= CAMPAIGN_RECORD_LIMITS.inlineUrlBytes)
    return { header: { ...header, urls: [...value.urls] }, parts: [] };
  const parts: CampaignPart[] = [];
  let bytes = Infinity;
  value.urls.forEach((url, i) => {
    if (bytes + sizes[i]! > CAMPAIGN_RECORD_LIMITS.partBytes) {
      parts.push({ token, revision, index: parts.length, urls: [] });
      bytes = 0;
    }
    parts[parts.length - 1]!.urls.push(url);
    bytes += sizes[i]!;
  });
  if (parts.length > CAMPAIGN_RECORD_LIMITS.parts) throw new RangeError(`campaign ${token}: too many parts`);
  return { header: { ...header, url_parts: parts.length }, parts };
}

/**
 * The record a header and its parts say (`parts[i]` the URLs of part i), or undefined while a
 * part is missing or the URLs do not match the header's count and digest.
 */
export function assembleCampaignRecord(
  header: CampaignHeader,
  parts: readonly (readonly string[] | undefined)[] = [],
): CampaignRegistryValue | undefined {
  if (header.deleted) return header;
  const { token, owner_id, revision } = header;
  let urls: readonly string[];
  if (header.urls) urls = header.urls;
  else {
    if (parts.length < (header.url_parts ?? 0)) return undefined;
    const joined: string[] = [];
    for (let i = 0; i < (header.url_parts ?? 0); i++) {
      const part = parts[i];
      if (!part) return undefined;
      joined.push(...part);
    }
    urls = joined;
  }
  if (urls.length !== header.url_count || campaignUrlDigest(urls) !== header.url_digest) return undefined;
  return {
    token,
    owner_id,
    revision,
    ...(header.name === undefined ? {} : { name: header.name }),
    urls,
    start_date: header.start_date,
    end_date: header.end_date,
    timezone: header.timezone,
    reach: header.reach,
    objective: header.objective,
    target_countries: header.target_countries,
    target_source: header.target_source,
  };
}

/**
 * Settings the bucket is created with, by whichever service starts first (an existing bucket is
 * opened as it is): the current value per key, nothing older.
 */
export function campaignRegistryBucketOptions(replicas: number): { history: number; replicas: number } {
  return { history: 1, replicas };
}
