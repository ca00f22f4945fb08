import type { Collection } from 'mongodb';
import type { CampaignDocument } from '../campaigns/campaign-store';
import type { ContentDocument } from './content-document';

/** Item fields that items stored before they existed lack, each following from the item's URL. */
type DerivedField = 'host' | 'page_key';
type LegacyItem = Pick<ContentDocument, 'token' | 'url' | DerivedField>;
type LegacyCampaign = { _id: string; content: LegacyItem[] };

/**
 * Items set by one update. Each update rewrites the whole campaign document (up to 5000 URLs of
 * 2048 characters, about 10 MB), so the largest campaign takes 5 writes rather than 5000; 1000
 * values of at most 2048 characters keep a command far below MongoDB's 16 MB.
 */
const ITEMS_PER_UPDATE = 1000;
/** Reads of one campaign whose items kept moving (a removal shifts the positions the updates name). */
const ATTEMPTS = 3;

/**
 * Gives each item that lacks `field` its value, a campaign at a time, in a few updates that name
 * the items by position, each guarded by the tokens at those positions: a concurrent removal
 * makes the update match nothing, and the campaign is read again. The value follows from the URL,
 * so a repeat or a race writes the same value. Returns how many items got it.
 */
export async function backfillContentField(
  campaigns: Collection<CampaignDocument>,
  field: DerivedField,
  valueOf: (item: LegacyItem) => string,
): Promise<number> {
  const projection = { 'content.token': 1, 'content.url': 1, [`content.${field}`]: 1 };
  const legacy = campaigns.find<LegacyCampaign>(
    { content: { $elemMatch: { [field]: { $exists: false } } } },
    { projection },
  );
  let backfilled = 0;
  for await (const found of legacy) {
    let campaign: LegacyCampaign | null = found;
    for (let attempt = 1; campaign !== null; attempt++) {
      const missing = campaign.content.flatMap((item, index) => (item[field] === undefined ? [{ item, index }] : []));
      if (attempt > ATTEMPTS) {
        backfilled += await oneByOne(campaigns, campaign._id, field, missing, valueOf);
        break;
      }
      const { done, moved } = await byPosition(campaigns, campaign._id, field, missing, valueOf);
      backfilled += done;
      campaign = moved ? await campaigns.findOne<LegacyCampaign>({ _id: campaign._id }, { projection }) : null;
    }
  }
  return backfilled;
}

type Missing = { item: LegacyItem; index: number }[];

async function byPosition(
  campaigns: Collection<CampaignDocument>,
  id: string,
  field: DerivedField,
  missing: Missing,
  valueOf: (item: LegacyItem) => string,
): Promise<{ done: number; moved: boolean }> {
  let done = 0;
  for (let start = 0; start < missing.length; start += ITEMS_PER_UPDATE) {
    const chunk = missing.slice(start, start + ITEMS_PER_UPDATE);
    const filter: Record<string, string> = { _id: id };
    const set: Record<string, string> = {};
    for (const { item, index } of chunk) {
      filter[`content.${index}.token`] = item.token;
      set[`content.${index}.${field}`] = valueOf(item);
    }
    const result = await campaigns.updateOne(filter, { $set: set });
    if (result.matchedCount === 0) return { done, moved: true };
    done += chunk.length;
  }
  return { done, moved: false };
}

/** A campaign whose items kept moving: one update per item, found by its token wherever it is now. */
async function oneByOne(
  campaigns: Collection<CampaignDocument>,
  id: string,
  field: DerivedField,
  missing: Missing,
  valueOf: (item: LegacyItem) => string,
): Promise<number> {
  let done = 0;
  for (const { item } of missing) {
    const result = await campaigns.updateOne(
      { _id: id, 'content.token': item.token },
      { $set: { [`content.$.${field}`]: valueOf(item) } },
    );
    done += result.matchedCount;
  }
  return done;
}
