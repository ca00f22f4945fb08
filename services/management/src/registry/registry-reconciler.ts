import type { Logger } from '@cm/platform';
import type { OwnerAnnouncer } from './owner-announcer';
import { buildOwnerRecord } from './owner-record';
import type { OwnerRegistryKv, RegistryEntry } from './owner-registry-kv';
import { planOrphanKey, planUserCorrection, type Correction, type CorrectionKind } from './reconcile-plan';
import type { RegistryUserStore } from './registry-user-store';

export interface RegistryReconcilerDeps {
  store: Pick<RegistryUserStore, 'page' | 'existing' | 'bumpPast'>;
  registry: Pick<OwnerRegistryKv, 'entries' | 'write' | 'purge'>;
  announcer: Pick<OwnerAnnouncer, 'publish'>;
  /** Distinct redirect hosts of the content URLs of each of these owners. */
  contentHostsByOwner(ownerIds: string[]): Promise<Map<string, string[]>>;
  /** Counts each correction made (metrics). */
  onCorrection(kind: CorrectionKind): void;
  tombstoneTtlMs: number;
  logger: Logger;
  now?: () => Date;
}

/** Users read per page, and orphan keys checked per query. */
const BATCH = 500;

/**
 * Makes the owner registry bucket say what the users collection says (the source of truth):
 * every user's record present at its revision with its current hosts, every key without a user
 * a tombstone (purged once older than the TTL). Users with a pending announcement are the
 * relay's; every write is compare-and-set on the revision, so a pass never undoes a newer live
 * write and several replicas may reconcile at once.
 */
export class RegistryReconciler {
  private readonly now: () => Date;

  constructor(private readonly deps: RegistryReconcilerDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** One pass; returns how many corrections it made. A stop signal ends it between pages (the next pass does the rest). */
  async run(stop?: AbortSignal): Promise<number> {
    const entries = await this.deps.registry.entries();
    const seen = new Set<string>();
    let corrections = 0;
    for (
      let page = await this.deps.store.page(undefined, BATCH);
      page.length > 0;
      page = await this.deps.store.page(page[page.length - 1]!._id, BATCH)
    ) {
      if (stop?.aborted) return corrections;
      const hosts = await this.deps.contentHostsByOwner(page.map((u) => u._id));
      for (const user of page) {
        seen.add(user._id);
        if (user.registry_pending) continue;
        const desired = buildOwnerRecord(user, user.deleted_at ? [] : (hosts.get(user._id) ?? []));
        const correction = planUserCorrection(desired, entries.get(user._id));
        if (correction.action === 'write' && (await this.deps.registry.write(desired)) === 'written')
          corrections += this.count(correction);
        if (
          correction.action === 'bump' &&
          (await this.deps.store.bumpPast(user._id, user.revision, correction.past))
        ) {
          await this.deps.announcer.publish(user._id);
          corrections += this.count(correction);
        }
      }
    }
    corrections += await this.correctOrphans([...entries.values()].filter((e) => !seen.has(e.key)));
    if (corrections > 0) this.deps.logger.warn('owner registry reconciled', { corrections });
    return corrections;
  }

  /** Keys the users pass did not meet; each is checked again (a user may have been created meanwhile). */
  private async correctOrphans(candidates: RegistryEntry[]): Promise<number> {
    let corrections = 0;
    for (let i = 0; i < candidates.length; i += BATCH) {
      const batch = candidates.slice(i, i + BATCH);
      const users = await this.deps.store.existing(batch.map((e) => e.key));
      for (const entry of batch.filter((e) => !users.has(e.key))) {
        const correction = planOrphanKey(entry, this.now(), this.deps.tombstoneTtlMs);
        if (correction.action === 'tombstone' && (await this.deps.registry.write(correction.record)) === 'written')
          corrections += this.count(correction);
        if (correction.action === 'purge' && (await this.deps.registry.purge(entry.key, entry.sequence)))
          corrections += this.count(correction);
      }
    }
    return corrections;
  }

  private count(correction: Exclude<Correction, { action: 'none' }>): number {
    this.deps.onCorrection(correction.kind);
    return 1;
  }
}
