import { parseCampaignPartKey } from '@cm/contracts';
import type { CampaignRegistryKv } from './campaign-registry-kv';
import type { CampaignRegistryStore } from './campaign-registry-store';

/** Campaigns whose revisions are read per query. */
const BATCH = 500;

/**
 * Removes parts no header will use: those of a revision older than the campaign's current one
 * (left by a writer that stopped between its parts and its header, or between a header and the
 * removal of the parts it replaced), and all of a campaign that no longer exists. The keys are
 * listed before the documents are read, so a part of the current revision is never taken, and a
 * campaign with a pending announcement is left to the relay, whose write cleans up after itself.
 * Returns how many revisions' parts went.
 */
export async function removeOrphanParts(
  registry: Pick<CampaignRegistryKv, 'partKeys' | 'purgeParts'>,
  store: Pick<CampaignRegistryStore, 'revisions'>,
  stop?: AbortSignal,
): Promise<number> {
  const revisionsByToken = new Map<string, Set<number>>();
  for (const key of await registry.partKeys()) {
    const part = parseCampaignPartKey(key);
    if (part) revisionsByToken.set(part.token, (revisionsByToken.get(part.token) ?? new Set()).add(part.revision));
  }
  const tokens = [...revisionsByToken.keys()];
  let removed = 0;
  for (let i = 0; i < tokens.length && !stop?.aborted; i += BATCH) {
    const batch = tokens.slice(i, i + BATCH);
    const current = await store.revisions(batch);
    for (const token of batch) {
      const campaign = current.get(token);
      if (campaign?.pending) continue;
      for (const revision of revisionsByToken.get(token)!) {
        if (campaign && revision >= campaign.revision) continue;
        await registry.purgeParts(token, revision);
        removed++;
      }
    }
  }
  return removed;
}
