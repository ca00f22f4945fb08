import type { Router } from 'express';
import type { Db } from 'mongodb';
import { prom, type Logger, type NatsConnection, type Registry } from '@cm/platform';
import type { ManagementConfig } from '../config';
import { USERS_COLLECTION, type UserDocument } from '../users/user-store';
import { OwnerAnnouncer } from './owner-announcer';
import { OwnerRegistryKv } from './owner-registry-kv';
import { PeriodicTask } from './periodic-task';
import { registryAdminRoutes } from './registry-admin-routes';
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
  /** Removes a deleted user's campaigns. */
  cleanup(ownerId: string): Promise<void>;
}

export interface RegistryFeature {
  announcer: OwnerAnnouncer;
  /** Operator routes, mounted under /admin/v1. */
  adminRouter: Router;
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
  new prom.Gauge({
    name: 'management_registry_outbox_pending',
    help: 'Users whose current owner record is not yet known to be in the owner registry bucket on NATS',
    registers: [deps.metrics],
    async collect() {
      this.set(await store.pendingCount());
    },
  });
  const corrections = new prom.Counter({
    name: 'management_registry_corrections_total',
    help: 'Owner registry keys corrected by reconciliation, by kind (missing, outdated, diverged, stale, invalid, expired_tombstone)',
    labelNames: ['kind'],
    registers: [deps.metrics],
  });
  const reconciler = new RegistryReconciler({
    store,
    registry: kv,
    announcer,
    contentHostsByOwner: deps.contentHostsByOwner,
    onCorrection: (kind) => corrections.inc({ kind }),
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
  const relay = new PeriodicTask(
    'owner registry relay',
    async () => void (await announcer.relayPending()),
    config.REGISTRY_RELAY_INTERVAL_MS,
    logger,
  );
  const reconciliation = new PeriodicTask(
    'owner registry reconciliation',
    reconcile,
    config.REGISTRY_RECONCILE_INTERVAL_MS,
    logger,
  );
  return {
    announcer,
    adminRouter: registryAdminRoutes(reconciler),
    start() {
      relay.start();
      reconciliation.start();
    },
    async stop() {
      await Promise.all([relay.stop(), reconciliation.stop()]);
      await announcer.settle();
    },
  };
}
