import {
  CAMPAIGN_PART_KEYS,
  CAMPAIGN_RECORD_KEYS,
  campaignKey,
  campaignPartKey,
  campaignRegistryBucketOptions,
  decodeCampaignHeader,
  encodeCampaignHeader,
  encodeCampaignPart,
  toCampaignValues,
  type CampaignHeader,
  type CampaignRegistryValue,
} from '@cm/contracts';
import type { NatsConnection } from '@cm/platform';
import { RegistryKv, type RegistryEntry, type WriteOutcome } from '../registry/registry-kv';

/**
 * The campaign registry bucket (see @cm/contracts): a header per campaign under its token,
 * compare-and-set on the revision like the owner registry, and for a large campaign its URLs in
 * parts keyed by revision. A record's parts are written before its header, so a reader that sees
 * the header can find them; those of the revision it replaced are removed after it, quietly (no
 * reader needs telling: it keeps the parts of the header it holds and drops older ones).
 */
export class CampaignRegistryKv {
  private readonly kv: RegistryKv<CampaignHeader>;

  constructor(nc: NatsConnection, bucket: string, replicas: number) {
    this.kv = new RegistryKv(
      nc,
      bucket,
      campaignRegistryBucketOptions(replicas),
      { key: (header) => campaignKey(header.token), encode: encodeCampaignHeader, decode: decodeCampaignHeader },
      'campaign registry',
    );
  }

  /** Writes the record unless the bucket holds one of an equal or higher revision for the campaign. */
  async write(value: CampaignRegistryValue): Promise<WriteOutcome> {
    const { header, parts } = toCampaignValues(value);
    let wroteParts = false;
    const { outcome, stored } = await this.kv.writeOver(header, async () => {
      // the same revision always has the same URLs, so a repeat writes what is there already
      for (const part of parts)
        await this.kv.put(campaignPartKey(part.token, part.revision, part.index), encodeCampaignPart(part));
      wroteParts = parts.length > 0;
    });
    if (outcome === 'written' && stored && !stored.deleted && stored.url_parts)
      await this.purgeParts(stored.token, stored.revision);
    // lost to a newer record after writing parts: they belong to no header
    if (outcome === 'skipped' && wroteParts && stored && stored.revision > value.revision)
      await this.purgeParts(value.token, value.revision);
    return outcome;
  }

  /** The headers (parts left out). */
  entries(): Promise<Map<string, RegistryEntry<CampaignHeader>>> {
    return this.kv.entries(CAMPAIGN_RECORD_KEYS);
  }

  purge(key: string, sequence: number): Promise<boolean> {
    return this.kv.purge(key, sequence);
  }

  /** The keys of every part in the bucket. */
  partKeys(): Promise<string[]> {
    return this.kv.keys(CAMPAIGN_PART_KEYS);
  }

  /** Removes every part of one revision of a campaign. */
  purgeParts(token: string, revision: number): Promise<void> {
    return this.kv.purgeQuietly(`${token}.${revision}.>`);
  }
}
