import type { Collection, Db } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { OwnerAnnouncer } from '../users/user-service';
import type { UserStore } from '../users/user-store';
import type { OwnerRegistryKv } from './owner-registry-kv';

interface PendingAnnouncement {
  _id: string;
  queued_at: Date;
}

/**
 * Outbox for user lifecycle messages. A change is first recorded in MongoDB, then published;
 * if NATS is down the relay loop publishes it later. What is published is the user's current
 * state (exists -> put, gone -> purge), so replays and reordering are harmless.
 */
export class OutboxOwnerAnnouncer implements OwnerAnnouncer {
  private readonly outbox: Collection<PendingAnnouncement>;
  private timer?: NodeJS.Timeout;
  private relaying?: Promise<void>;

  constructor(
    db: Db,
    private readonly users: UserStore,
    private readonly registry: OwnerRegistryKv,
    private readonly logger: Logger,
  ) {
    this.outbox = db.collection<PendingAnnouncement>('registry_outbox');
  }

  /** Changes recorded but not yet published (alert when this stays above 0: NATS unreachable). */
  pendingCount(): Promise<number> {
    return this.outbox.estimatedDocumentCount();
  }

  async announce(uniqueId: string): Promise<void> {
    const queuedAt = new Date();
    await this.outbox.updateOne({ _id: uniqueId }, { $set: { queued_at: queuedAt } }, { upsert: true });
    try {
      await this.publish(uniqueId, queuedAt);
    } catch (err) {
      this.logger.warn('owner registry publish deferred', { unique_id: uniqueId, error: String(err) });
    }
  }

  /** Publishes everything still pending; returns how many were published. */
  async relayPending(): Promise<number> {
    let published = 0;
    for await (const pending of this.outbox.find().sort({ queued_at: 1 }).limit(1000)) {
      await this.publish(pending._id, pending.queued_at);
      published++;
    }
    return published;
  }

  start(intervalMs: number): void {
    const tick = () => {
      this.relaying = this.relayPending()
        .then((n) => {
          if (n > 0) this.logger.info('owner registry relayed', { count: n });
        })
        .catch((err: unknown) => {
          this.logger.warn('owner registry relay failed', { error: String(err) });
        })
        .finally(() => {
          this.relaying = undefined;
          if (this.timer) this.timer = setTimeout(tick, intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.relaying;
  }

  private async publish(uniqueId: string, queuedAt: Date): Promise<void> {
    const user = await this.users.findById(uniqueId);
    if (user) {
      await this.registry.put({ owner_id: user._id, account_id: user.account_id, created_at: user.created_at.toISOString(), revision: 0, redirect_hosts: [] });
    } else {
      await this.registry.remove(uniqueId);
    }
    // a newer change re-queued it meanwhile: leave it for the relay
    await this.outbox.deleteOne({ _id: uniqueId, queued_at: queuedAt });
  }
}
