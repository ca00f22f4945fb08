import type { Logger } from '@cm/platform';
import { BoundedPublisher } from './bounded-publisher';
import { buildOwnerRecord } from './owner-record';
import type { OwnerRegistryKv } from './owner-registry-kv';
import type { RegistryUserStore } from './registry-user-store';

export interface OwnerAnnouncerDeps {
  store: Pick<RegistryUserStore, 'findForRecord' | 'pendingIds' | 'bump' | 'announced' | 'remove'>;
  registry: Pick<OwnerRegistryKv, 'write'>;
  /** Distinct redirect hosts of the owner's content URLs (from the campaigns). */
  contentHosts(ownerId: string): Promise<string[]>;
  /** Removes what a deleted user owned (its campaigns, announced as tombstones). */
  cleanup(ownerId: string): Promise<void>;
  logger: Logger;
  /** How long a request waits for its announcement before leaving it to the relay. */
  syncTimeoutMs: number;
}

/**
 * Tells the events service about user changes through the owner registry bucket. The change and
 * its pending announcement are one write (registry-fields.ts); announce() then publishes at once,
 * waiting at most `syncTimeoutMs`, and the relay publishes whatever is still pending later (NATS
 * down, a crash). What is published is always built from the current documents, and every write
 * is compare-and-set on the revision, so repeats, races and reordering are harmless.
 */
export class OwnerAnnouncer {
  private readonly publisher: BoundedPublisher;

  constructor(private readonly deps: OwnerAnnouncerDeps) {
    this.publisher = new BoundedPublisher({
      what: 'owner registry',
      idField: 'user_id',
      publish: (userId) => this.publish(userId),
      pending: (limit) => deps.store.pendingIds(limit),
      logger: deps.logger,
      syncTimeoutMs: deps.syncTimeoutMs,
    });
  }

  /** After a write that set the pending announcement: publish now, bounded; never throws. */
  announce(userId: string): Promise<void> {
    return this.publisher.announce(userId);
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
  relayPending(): Promise<number> {
    return this.publisher.relayPending();
  }

  /** Waits for announcements still running after their requests answered. */
  settle(): Promise<void> {
    return this.publisher.settle();
  }
}
