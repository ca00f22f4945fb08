import {
  CAMPAIGN_RECORD_LIMITS,
  toCampaignValues,
  type CampaignHeader,
  type CampaignRecord,
  type CampaignRegistryValue,
} from '@cm/contracts';
import type { CampaignDocument } from '../campaigns/campaign-store';
import { countryCode } from '../validation/countries';
import { DEFAULT_TIMEZONE } from '../validation/timezones';

/** What a campaign's record is built from (fields of its document; of the content, only the URLs). */
export type RegistryCampaign = Pick<
  CampaignDocument,
  | '_id'
  | 'owner_id'
  | 'name'
  | 'start_date'
  | 'end_date'
  | 'reach'
  | 'objective'
  | 'target_geography'
  | 'revision'
  | 'registry_pending'
  | 'deleted_at'
> & { content: { url: string }[] };

/** What a record takes from the owner (fields of the user document). */
export interface CampaignOwner {
  timezone?: string;
  target_geography?: string[];
  /** The user is deleted: its campaigns are tombstones. */
  deleted: boolean;
}

/** A campaign URL in the form reports match pages by (injected by the composition root). */
export type CanonicalUrl = (url: string) => string;

/** Alpha-2 codes of country names, sorted, without repeats (a name no longer known is left out). */
function codesOf(names: readonly string[] | undefined): string[] {
  const codes = new Set<string>();
  for (const name of names ?? []) {
    const code = countryCode(name);
    if (code) codes.add(code);
  }
  return [...codes].sort();
}

/** The content URLs in canonical form: unique, sorted; a form the contract would refuse is left out. */
function canonicalUrls(content: readonly { url: string }[], canonical: CanonicalUrl): string[] {
  const urls = new Set<string>();
  for (const { url } of content) {
    let form = url;
    try {
      form = canonical(url);
    } catch {
      // a canonicaliser that cannot read a URL management stored: the stored form still names the page
    }
    if (form.length > 0 && form.length <= CAMPAIGN_RECORD_LIMITS.urlLength) urls.add(form);
  }
  return [...urls].sort();
}

/**
 * The campaign's record at its current revision. A deleted campaign, or one whose owner is
 * deleted or gone, is a tombstone. The geography is the campaign's, else its owner's.
 */
export function buildCampaignRecord(
  campaign: RegistryCampaign,
  owner: CampaignOwner | undefined,
  canonical: CanonicalUrl,
): CampaignRegistryValue {
  const { _id: token, owner_id, revision } = campaign;
  if (campaign.deleted_at || !owner || owner.deleted) return { token, owner_id, revision, deleted: true };
  const own = codesOf(campaign.target_geography);
  const inherited = own.length > 0 ? [] : codesOf(owner.target_geography);
  const record: CampaignRecord = {
    token,
    owner_id,
    revision,
    name: campaign.name,
    urls: canonicalUrls(campaign.content, canonical),
    start_date: campaign.start_date,
    end_date: campaign.end_date,
    timezone: owner.timezone || DEFAULT_TIMEZONE,
    reach: campaign.reach ?? null,
    objective: campaign.objective || null,
    target_countries: own.length > 0 ? own : inherited,
    target_source: own.length > 0 ? 'campaign' : inherited.length > 0 ? 'owner' : 'none',
  };
  return record;
}

/** The header's fields that carry state (not the revision, nor whether the URLs are inline or in parts). */
const STATE_FIELDS = [
  'owner_id',
  'name',
  'start_date',
  'end_date',
  'timezone',
  'reach',
  'objective',
  'target_source',
  'url_count',
  'url_digest',
] as const;

/** The bucket's header says what the campaigns collection says (its URLs compared by count and digest). */
export function sameCampaignState(stored: CampaignHeader, desired: CampaignRegistryValue): boolean {
  const wanted = toCampaignValues(desired).header;
  if (stored.deleted || wanted.deleted) return stored.deleted === wanted.deleted && stored.owner_id === wanted.owner_id;
  return (
    STATE_FIELDS.every((field) => stored[field] === wanted[field]) &&
    stored.target_countries.join() === wanted.target_countries.join()
  );
}
