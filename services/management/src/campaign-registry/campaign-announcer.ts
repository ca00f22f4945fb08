import type { Logger } from '@cm/platform';
import { BoundedPublisher } from '../registry/bounded-publisher';
import { buildCampaignRecord, type CanonicalUrl } from './campaign-record';
import type { CampaignRegistryKv } from './campaign-registry-kv';
import type { CampaignRegistryStore } from './campaign-registry-store';

export interface CampaignAnnouncerDeps {
  store: Pick<
    CampaignRegistryStore,
    | 'findForRecord'
    | 'owners'
    | 'pendingIds'
    | 'announced'
    | 'remove'
    | 'markDeleted'
    | 'markOwnerDeleted'
    | 'ownerChanged'
    | 'tokensOf'
  >;
  registry: Pick<CampaignRegistryKv, 'write'>;
  canonicalUrl: CanonicalUrl;
  logger: Logger;
  /** How long a request waits for its announcement before leaving it to the relay. */
  syncTimeoutMs: number;
  now?: () => Date;
}

/**
 * Tells the events service about campaign changes through the campaign registry bucket, as the
 * owner announcer does for users: the change and its pending announcement are one write (the
 * campaign's own, or for an owner's settings right after the user's), announce() publishes at
 * once within `syncTimeoutMs`, the relay publishes what is still pending. What is published is
 * built from the current documents; every write is compare-and-set on the revision.
 */
export class CampaignAnnouncer {
  private readonly publisher: BoundedPublisher;
  private readonly now: () => Date;

  constructor(private readonly deps: CampaignAnnouncerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.publisher = new BoundedPublisher({
      what: 'campaign registry',
      idField: 'campaign_token',
      publish: (token) => this.publish(token),
      pending: (limit) => deps.store.pendingIds(limit),
      logger: deps.logger,
      syncTimeoutMs: deps.syncTimeoutMs,
    });
  }

  /** After a write that set the campaign's pending announcement: publish now, bounded; never throws. */
  announce(token: string): Promise<void> {
    return this.publisher.announce(token);
  }

  /**
   * The owner's time zone or geography changed (already written): every campaign of the owner
   * gets a new revision and is announced. Never throws: if even the revisions cannot be written,
   * reconciliation finds the records saying something else and repairs them.
   */
  async ownerChanged(ownerId: string): Promise<void> {
    let tokens: string[];
    try {
      await this.deps.store.ownerChanged(ownerId);
      tokens = await this.deps.store.tokensOf(ownerId);
    } catch (err) {
      this.deps.logger.warn('campaign record revisions not written; reconciliation will repair them', {
        user_id: ownerId,
        error: String(err),
      });
      return;
    }
    await this.publisher.announceAll(tokens, `owner ${ownerId}`);
  }

  /**
   * A deleted user's campaigns: each marked deleted and its tombstone published (throws when that
   * fails, so the user's own announcement is repeated, and this with it, until it succeeds).
   */
  async deleteAllForOwner(ownerId: string): Promise<void> {
    await this.deps.store.markOwnerDeleted(ownerId, this.now());
    for (const token of await this.deps.store.tokensOf(ownerId)) await this.publish(token);
  }

  /** Publishes the campaign's current record; a deleted campaign's document goes once its tombstone is in. */
  async publish(token: string): Promise<void> {
    let campaign = await this.deps.store.findForRecord(token);
    if (!campaign) return;
    const owner = (await this.deps.store.owners([campaign.owner_id])).get(campaign.owner_id);
    if (!campaign.deleted_at && (!owner || owner.deleted)) {
      // the owner went without this campaign: it goes too, as its owner's deletion would have taken it
      await this.deps.store.markDeleted(token, this.now());
      campaign = await this.deps.store.findForRecord(token);
      if (!campaign) return;
    }
    await this.deps.registry.write(buildCampaignRecord(campaign, owner, this.deps.canonicalUrl));
    if (campaign.deleted_at) await this.deps.store.remove(token, campaign.revision);
    else await this.deps.store.announced(token, campaign.revision);
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
