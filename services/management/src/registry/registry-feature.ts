import type { Collection } from 'mongodb';
import { prom, type Logger, type NatsConnection, type Registry } from '@cm/platform';
import type { ManagementConfig } from '../config';
import { OwnerAnnouncer } from './owner-announcer';
import { OwnerRegistryKv } from './owner-registry-kv';
import { PeriodicTask } from './periodic-task';
import type { UserDocument } from '../users/user-store';
import { RegistryUserStore } from './registry-user-store';

export interface RegistryFeatureDeps {
  nc: NatsConnection;
  users: Collection<UserDocument>;
  config: Pick<ManagementConfig, 'OWNER_REGISTRY_BUCKET' | 'OWNER_REGISTRY_REPLICAS' | 'REGISTRY_RELAY_INTERVAL_MS' | 'REGISTRY_SYNC_TIMEOUT_MS'>;
  logger: Logger;
  metrics: Registry;
  /** Distinct redirect hosts of an owner's content URLs. */
  contentHosts(ownerId: string): Promise<string[]>;
  /** Removes a deleted user's campaigns. */
  cleanup(ownerId: string): Promise<void>;
}

export interface RegistryFeature {
  announcer: OwnerAnnouncer;
  /** Starts the relay. */
  start(): void;
  /** Stops the relay and waits for announcements in flight. */
  stop(): Promise<void>;
}

/** The owner registry on NATS (management's write side), wired together. */
export async function createRegistryFeature(deps: RegistryFeatureDeps): Promise<RegistryFeature> {
  const { config, logger } = deps;
  const store = new RegistryUserStore(deps.users);
  await store.init();
  const kv = new OwnerRegistryKv(deps.nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS);
  const announcer = new OwnerAnnouncer({ store, registry: kv, contentHosts: deps.contentHosts, cleanup: deps.cleanup, logger, syncTimeoutMs: config.REGISTRY_SYNC_TIMEOUT_MS });
  new prom.Gauge({
    name: 'management_registry_outbox_pending',
    help: 'Users whose current owner record is not yet known to be in the owner registry bucket on NATS',
    registers: [deps.metrics],
    async collect() {
      this.set(await store.pendingCount());
    },
  });
  const relay = new PeriodicTask('owner registry relay', async () => void (await announcer.relayPending()), config.REGISTRY_RELAY_INTERVAL_MS, logger);
  return {
    announcer,
    start: () => relay.start(),
    async stop() {
      await relay.stop();
      await announcer.settle();
    },
  };
}
