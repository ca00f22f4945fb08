import type { CampaignRegistryValue } from '@cm/contracts';
import type { ReconcileItem } from '../registry/registry-reconciler';
import { buildCampaignRecord, type CanonicalUrl, type RegistryCampaign } from './campaign-record';
import type { CampaignRegistryStore } from './campaign-registry-store';

/** A chunk ends at this many campaigns or content URLs, whichever comes first: the largest campaigns are never held many at a time. */
const CHUNK_CAMPAIGNS = 200;
const CHUNK_URLS = 20_000;

/** Every campaign in `_id` order, in chunks, with the record it makes now (its owners read per chunk). */
export async function* campaignReconcileItems(
  store: Pick<CampaignRegistryStore, 'scan' | 'owners'>,
  canonicalUrl: CanonicalUrl,
): AsyncIterable<ReconcileItem<CampaignRegistryValue>[]> {
  const toItems = async (chunk: RegistryCampaign[]) => {
    const owners = await store.owners([...new Set(chunk.map((c) => c.owner_id))]);
    return chunk.map((campaign) => ({
      id: campaign._id,
      revision: campaign.revision,
      pending: campaign.registry_pending === true,
      desired: buildCampaignRecord(campaign, owners.get(campaign.owner_id), canonicalUrl),
    }));
  };
  let chunk: RegistryCampaign[] = [];
  let urls = 0;
  for await (const campaign of store.scan()) {
    chunk.push(campaign);
    urls += campaign.content?.length ?? 0;
    if (chunk.length >= CHUNK_CAMPAIGNS || urls >= CHUNK_URLS) {
      yield await toItems(chunk);
      chunk = [];
      urls = 0;
    }
  }
  if (chunk.length > 0) yield await toItems(chunk);
}
