import type { Db } from 'mongodb';
import type { CampaignHeader, CampaignRegistryValue } from '@cm/contracts';
import type { Logger, NatsConnection, Registry } from '@cm/platform';
import { CAMPAIGNS_COLLECTION, type CampaignDocument } from '../campaigns/campaign-store';
import type { ManagementConfig } from '../config';
import { registryLoops, registryMetrics } from '../registry/registry-loops';
import { RegistryReconciler } from '../registry/registry-reconciler';
import { USERS_COLLECTION, type UserDocument } from '../users/user-store';
import { CampaignAnnouncer } from './campaign-announcer';
import { removeOrphanParts } from './campaign-parts-cleanup';
import { campaignReconcileItems } from './campaign-reconcile-items';
import { sameCampaignState, type CanonicalUrl } from './campaign-record';
import { CampaignRegistryKv } from './campaign-registry-kv';
import { CampaignRegistryStore } from './campaign-registry-store';

export interface CampaignRegistryFeatureDeps {
  nc: NatsConnection;
  db: Db;
  config: Pick<
    ManagementConfig,
    | 'CAMPAIGN_REGISTRY_BUCKET'
    | 'CAMPAIGN_REGISTRY_REPLICAS'
    | 'REGISTRY_RELAY_INTERVAL_MS'
    | 'REGISTRY_SYNC_TIMEOUT_MS'
    | 'REGISTRY_RECONCILE_INTERVAL_MS'
    | 'REGISTRY_TOMBSTONE_TTL_DAYS'
  >;
  logger: Logger;
  metrics: Registry;
  /** The canonical form of a content URL, the one reports match pages by. */
  canonicalUrl: CanonicalUrl;
}

export interface CampaignRegistryFeature {
  /** Publishes a campaign's record after a write that changed it (bounded; never throws). */
  announce(token: string): Promise<void>;
  /** The owner's time zone or geography changed: every campaign of the owner is announced. */
  ownerChanged(ownerId: string): Promise<void>;
  /** A deleted user's campaigns become tombstones and go (throws until that is done). */
  deleteAllForOwner(ownerId: string): Promise<void>;
  /** One reconciliation pass on demand (the operator endpoint). */
  reconciler: { run(): Promise<number> };
  /** Starts the relay and the reconciliation (its first pass at once). */
  start(): void;
  /** Stops both and waits for announcements in flight. */
  stop(): Promise<void>;
}

/** The campaign registry on NATS (management's write side), wired like the owner registry. */
export async function createCampaignRegistryFeature(
  deps: CampaignRegistryFeatureDeps,
): Promise<CampaignRegistryFeature> {
  const { config, logger } = deps;
  const store = new CampaignRegistryStore(
    deps.db.collection<CampaignDocument>(CAMPAIGNS_COLLECTION),
    deps.db.collection<UserDocument>(USERS_COLLECTION),
  );
  await store.init();
  const kv = new CampaignRegistryKv(deps.nc, config.CAMPAIGN_REGISTRY_BUCKET, config.CAMPAIGN_REGISTRY_REPLICAS);
  const announcer = new CampaignAnnouncer({
    store,
    registry: kv,
    canonicalUrl: deps.canonicalUrl,
    logger,
    syncTimeoutMs: config.REGISTRY_SYNC_TIMEOUT_MS,
  });
  const onCorrection = registryMetrics(
    deps.metrics,
    {
      pending: {
        name: 'management_campaign_registry_pending',
        help: 'Campaigns whose current record is not yet known to be in the campaign registry bucket on NATS',
      },
      corrections: {
        name: 'management_campaign_registry_corrections_total',
        help: 'Campaign registry keys corrected by reconciliation, by kind (missing, outdated, diverged, stale, invalid, expired_tombstone, orphan_parts)',
      },
    },
    () => store.pendingCount(),
  );
  const reconciler = new RegistryReconciler<CampaignHeader, CampaignRegistryValue>({
    what: 'campaign registry',
    items: () => campaignReconcileItems(store, deps.canonicalUrl),
    existing: (tokens) => store.existing(tokens),
    bumpPast: (token, revision, atLeast) => store.bumpPast(token, revision, atLeast),
    publish: (token) => announcer.publish(token),
    registry: kv,
    same: sameCampaignState,
    tombstoneOf: (stored) => ({
      token: stored.token,
      owner_id: stored.owner_id,
      revision: stored.revision + 1,
      deleted: true,
    }),
    afterKeys: async (stop) => {
      const removed = await removeOrphanParts(kv, store, stop);
      for (let i = 0; i < removed; i++) onCorrection('orphan_parts');
      return removed;
    },
    onCorrection,
    tombstoneTtlMs: config.REGISTRY_TOMBSTONE_TTL_DAYS * 86_400_000,
    logger,
  });
  const loops = registryLoops({
    what: 'campaign registry',
    relay: () => announcer.relayPending(),
    reconcile: (stop) => reconciler.run(stop),
    settle: () => announcer.settle(),
    relayIntervalMs: config.REGISTRY_RELAY_INTERVAL_MS,
    reconcileIntervalMs: config.REGISTRY_RECONCILE_INTERVAL_MS,
    logger,
  });
  return {
    announce: (token) => announcer.announce(token),
    ownerChanged: (ownerId) => announcer.ownerChanged(ownerId),
    deleteAllForOwner: (ownerId) => announcer.deleteAllForOwner(ownerId),
    reconciler,
    start: () => loops.start(),
    stop: () => loops.stop(),
  };
}
