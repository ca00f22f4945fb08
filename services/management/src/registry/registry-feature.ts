import type { Db } from 'mongodb';
import type { OwnerRecord } from '@cm/contracts';
import type { Logger, NatsConnection, Registry } from '@cm/platform';
import type { ManagementConfig } from '../config';
import { USERS_COLLECTION, type UserDocument } from '../users/user-store';
import { OwnerAnnouncer } from './owner-announcer';
import { ownerReconcileItems } from './owner-reconcile-items';
import { sameOwnerState } from './owner-record';
import { OwnerRegistryKv } from './owner-registry-kv';
import { ownerTombstone } from './reconcile-plan';
import { registryLoops, registryMetrics } from './registry-loops';
import { RegistryReconciler } from './registry-reconciler';
import { RegistryUserStore } from './registry-user-store';

export interface RegistryFeatureDeps {
  nc: NatsConnection;
  db: Db;
  config: Pick<
    ManagementConfig,
    | 'OWNER_REGISTRY_BUCKET'
    | 'OWNER_REGISTRY_REPLICAS'
    | 'REGISTRY_RELAY_INTERVAL_MS'
    | 'REGISTRY_SYNC_TIMEOUT_MS'
    | 'REGISTRY_RECONCILE_INTERVAL_MS'
    | 'REGISTRY_TOMBSTONE_TTL_DAYS'
  >;
  logger: Logger;
  metrics: Registry;
  /** Distinct redirect hosts of an owner's content URLs. */
  contentHosts(ownerId: string): Promise<string[]>;
  /** The same for many owners at once (reconciliation). */
  contentHostsByOwner(ownerIds: string[]): Promise<Map<string, string[]>>;
  /** Gives content items stored before redirect hosts existed their host (once, before the first reconciliation). */
  backfillHosts(): Promise<number>;
  /** Removes a deleted user's campaigns (announcing their tombstones). */
  cleanup(ownerId: string): Promise<void>;
}

export interface RegistryFeature {
  announcer: OwnerAnnouncer;
  /** One reconciliation pass on demand (the operator endpoint). */
  reconciler: { run(): Promise<number> };
  /** Starts the relay and the reconciliation (its first pass at once). */
  start(): void;
  /** Stops both and waits for announcements in flight. */
  stop(): Promise<void>;
}

/** The outbox collection of versions before the pending announcement moved into the user document. */
const LEGACY_OUTBOX = 'registry_outbox';

/** The owner registry on NATS (management's write side), wired together. */
export async function createRegistryFeature(deps: RegistryFeatureDeps): Promise<RegistryFeature> {
  const { config, logger } = deps;
  const store = new RegistryUserStore(deps.db.collection<UserDocument>(USERS_COLLECTION));
  await store.init();
  const kv = new OwnerRegistryKv(deps.nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS);
  const announcer = new OwnerAnnouncer({
    store,
    registry: kv,
    contentHosts: deps.contentHosts,
    cleanup: deps.cleanup,
    logger,
    syncTimeoutMs: config.REGISTRY_SYNC_TIMEOUT_MS,
  });
  const onCorrection = registryMetrics(
    deps.metrics,
    {
      pending: {
        name: 'management_registry_outbox_pending',
        help: 'Users whose current owner record is not yet known to be in the owner registry bucket on NATS',
      },
      corrections: {
        name: 'management_registry_corrections_total',
        help: 'Owner registry keys corrected by reconciliation, by kind (missing, outdated, diverged, stale, invalid, expired_tombstone)',
      },
    },
    () => store.pendingCount(),
  );
  const reconciler = new RegistryReconciler<OwnerRecord, OwnerRecord>({
    what: 'owner registry',
    items: () => ownerReconcileItems(store, deps.contentHostsByOwner),
    existing: (ids) => store.existing(ids),
    bumpPast: (id, revision, atLeast) => store.bumpPast(id, revision, atLeast),
    publish: (id) => announcer.publish(id),
    registry: kv,
    same: sameOwnerState,
    tombstoneOf: ownerTombstone,
    onCorrection,
    tombstoneTtlMs: config.REGISTRY_TOMBSTONE_TTL_DAYS * 86_400_000,
    logger,
  });

  let upgraded = false;
  const reconcile = async (stop: AbortSignal) => {
    if (!upgraded) {
      const backfilled = await deps.backfillHosts();
      if (backfilled > 0) logger.info('content hosts backfilled', { items: backfilled });
    }
    await reconciler.run(stop);
    if (!upgraded && !stop.aborted) {
      // whatever the old outbox still listed, the pass just made true in the bucket
      await deps.db
        .collection(LEGACY_OUTBOX)
        .drop()
        .catch(() => undefined);
      upgraded = true;
    }
  };
  const loops = registryLoops({
    what: 'owner registry',
    relay: () => announcer.relayPending(),
    reconcile,
    settle: () => announcer.settle(),
    relayIntervalMs: config.REGISTRY_RELAY_INTERVAL_MS,
    reconcileIntervalMs: config.REGISTRY_RECONCILE_INTERVAL_MS,
    logger,
  });
  return {
    announcer,
    reconciler,
    start: () => loops.start(),
    stop: () => loops.stop(),
  };
}
