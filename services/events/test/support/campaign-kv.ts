import type { KV } from '@nats-io/kv';
import {
  campaignPartKey,
  encodeCampaignHeader,
  encodeCampaignPart,
  toCampaignValues,
  type CampaignRegistryValue,
} from '@cm/contracts';

/** Writes a campaign record into a campaign registry bucket as management does: a large campaign's URL parts first, then its header. */
export async function writeCampaignRecord(kv: KV, record: CampaignRegistryValue): Promise<void> {
  const { header, parts } = toCampaignValues(record);
  for (const part of parts)
    await kv.put(campaignPartKey(part.token, part.revision, part.index), encodeCampaignPart(part));
  await kv.put(header.token, encodeCampaignHeader(header));
}
