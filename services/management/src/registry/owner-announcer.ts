import type { Logger } from '@cm/platform';
import { buildOwnerRecord } from './owner-record';
import type { OwnerRegistryKv } from './owner-registry-kv';
import type { RegistryUserStore } from './registry-user-store';

export interface OwnerAnnouncerDeps {
  store: Pick<RegistryUserStore, 'findForRecord' | 'pending' | 'bump' | 'announced' | 'remove'>;
  registry: Pick<OwnerRegistryKv, 'write'>;
  /** Distinct redirect hosts of the owner's content URLs (from the campaigns). */
  contentHosts(ownerId: string): Promise<string[]>;
  /** Removes what a deleted user owned (its campaigns). */
  cleanup(ownerId: string): Promise<void>;
  logger: Logger;
  /** How long a request waits for its announcement before leaving it to the relay. */
  syncTimeoutMs: number;
}

/** Pending users the relay publishes per run. */
const RELAY_BATCH = 1000;

/**
 * Tells the events service about user changes through the owner registry bucket. The change and
 * its pending announcement are one write (registry-fields.ts); announce() then publishes at once,
 * waiting at most `syncTimeoutMs`, and the relay publishes whatever is still pending later (NATS
 * down, a crash). What is published is always built from the current documents, and every write
 * is compare-and-set on the revision, so repeats, races and reordering are harmless.
 */
export class OwnerAnnouncer {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: OwnerAnnouncerDeps) {}

  /** After a write that set the pending announcement: publish now, bounded; never throws. */
  async announce(userId: string): Promise<void> {
    const publishing = this.publish(userId);
    this.inFlight.add(publishing);
    void publishing.catch(() => undefined).finally(() => this.inFlight.delete(publishing));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.deps.syncTimeoutMs)));
    try {
      if ((await Promise.race([publishing, late])) === 'late')
        this.deps.logger.warn('owner registry publish is slow; the relay will finish it', { user_id: userId });
    } catch (err) {
      this.deps.logger.warn('owner registry publish deferred to the relay', { user_id: userId, error: String(err) });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The owner's content URLs changed (a different collection, already written): a new revision,
   * announced like any change. Never throws: the content change stands, and if even the revision
   * cannot be written, reconciliation finds the record out of date and repairs it.
   */
  async ownerChanged(ownerId: string): Promise<void> {
    try {
      if (!(await this.deps.store.bump(ownerId))) return;
    } catch (err) {
      this.deps.logger.warn('owner record revision not written; reconciliation will repair it', {
        user_id: ownerId,
        error: String(err),
      });
      return;
    }
    await this.announce(ownerId);
  }

  /** Publishes the user's current record; a deleted user's data goes first, its document last. */
  async publish(userId: string): Promise<void> {
    const user = await this.deps.store.findForRecord(userId);
    if (!user) return;
    if (user.deleted_at) await this.deps.cleanup(userId);
    const record = buildOwnerRecord(user, user.deleted_at ? [] : await this.deps.contentHosts(userId));
    await this.deps.registry.write(record);
    if (user.deleted_at) await this.deps.store.remove(userId, user.revision);
    else await this.deps.store.announced(userId, user.revision);
  }

  /** Publishes what is still pending; returns how many were published. */
  async relayPending(): Promise<number> {
    let published = 0;
    for (const user of await this.deps.store.pending(RELAY_BATCH)) {
      await this.publish(user._id);
      published++;
    }
    if (published > 0) this.deps.logger.info('owner registry relayed', { count: published });
    return published;
  }

  /** Waits for announcements still running after their requests answered. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
