import http from 'node:http';
import path from 'node:path';
import {
  apiDocsRouter,
  bodyParsers,
  closeServer,
  connectMongo,
  connectNats,
  createRegistry,
  prom,
  loadOpenApiDocument,
  healthRouter,
  pingNats,
  startEarly,
  type Logger,
  type OnStartFailure,
  type StartingServer,
} from '@cm/platform';
import { accountRoutes } from './accounts/account-routes';
import { createApp } from './app';
import { bearerAuth } from './auth/bearer-auth';
import { createCampaignFeature } from './campaigns/campaign-feature';
import type { ManagementConfig } from './config';
import { OutboxOwnerAnnouncer } from './registry/owner-announcer';
import { OwnerRegistryKv } from './registry/owner-registry-kv';
import { UserService } from './users/user-service';
import { UserStore } from './users/user-store';
import { userRoutes } from './users/user-routes';

export interface ManagementSystem {
  server: http.Server;
  port: number;
  /** Graceful stop: stop accepting, finish in-flight requests and background work, close connections. */
  stop(): Promise<void>;
}

/**
 * The one place that constructs things for the management service. It listens first (/healthz
 * 200, /readyz 503 naming the step in progress), then connects, retrying each dependency with
 * backoff until it answers (services start in any order); `signal` cancels those waits.
 * Resolves once the service is ready.
 */
export function startManagement(config: ManagementConfig, logger: Logger, port = config.MANAGEMENT_PORT, signal?: AbortSignal): Promise<ManagementSystem> {
  return startEarly({ logger, signal, port, closeTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, (boot, boundPort, onFailure) => startParts(config, logger, boot, boundPort, onFailure));
}

async function startParts(config: ManagementConfig, logger: Logger, boot: StartingServer, boundPort: number, onFailure: OnStartFailure): Promise<ManagementSystem> {
  const mongo = await boot.step('mongo', () => connectMongo(config.MONGO_URL, config.MONGO_DB));
  onFailure(() => mongo.close());
  const nc = await boot.step('nats', () => connectNats({ url: config.NATS_URL, name: 'management', logger }));
  onFailure(() => nc.close());
  const metrics = createRegistry('management');

  const userStore = new UserStore(mongo.db);
  await boot.step('mongo_indexes', () => userStore.init());
  const campaigns = await createCampaignFeature({
    db: mongo.db,
    logger,
    config,
    metrics,
    timezoneOf: async (id) => (await userStore.findById(id))?.timezone ?? 'UTC',
  });
  const announcer = new OutboxOwnerAnnouncer(mongo.db, userStore, new OwnerRegistryKv(nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS), logger);
  new prom.Gauge({
    name: 'management_registry_outbox_pending',
    help: 'User lifecycle changes recorded but not yet published to the owner registry on NATS',
    registers: [metrics],
    async collect() {
      this.set(await announcer.pendingCount());
    },
  });
  const users = new UserService({ store: userStore, announcer, cleanup: (id) => campaigns.deleteAllForOwner(id) });
  const parsers = bodyParsers({ limit: config.BODY_LIMIT });

  const app = createApp({
    logger,
    metrics,
    health: healthRouter({ mongo: () => mongo.ping(), nats: () => pingNats(nc) }),
    docs: apiDocsRouter(loadOpenApiDocument(path.join(__dirname, '..', 'openapi.yaml'))),
    admin: accountRoutes(users, config.ADMIN_TOKEN, parsers),
    apiAuth: bearerAuth({ findByApiToken: async (token) => {
      const user = await userStore.findByApiToken(token);
      return user ? { unique_id: user._id, account_id: user.account_id, role: user.role } : undefined;
    } }),
    bodyParsers: parsers,
    api: [userRoutes(users), ...campaigns.routers],
  });

  const { server } = boot;
  boot.serve(app);
  announcer.start(config.REGISTRY_RELAY_INTERVAL_MS);
  await campaigns.start();
  logger.info('management listening', { port: boundPort });

  return {
    server,
    port: boundPort,
    async stop() {
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await campaigns.stop();
      await announcer.stop();
      await nc.drain();
      await mongo.close();
    },
  };
}
