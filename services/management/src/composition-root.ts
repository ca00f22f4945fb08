import http from 'node:http';
import path from 'node:path';
import {
  adminAuth,
  apiDocsRouter,
  bodyParsers,
  closeServer,
  connectMongo,
  connectNats,
  createRegistry,
  prom,
  loadOpenApiDocument,
  healthRouter,
  listen,
  pingNats,
  type Logger,
} from '@cm/platform';
import { accountRoutes } from './accounts/account-routes';
import { createApp } from './app';
import { bearerAuth } from './auth/bearer-auth';
import { createCampaignFeature } from './campaigns/campaign-feature';
import type { ManagementConfig } from './config';
import { OutboxOwnerAnnouncer } from './registry/owner-announcer';
import { OwnerRegistryKv } from './registry/owner-registry-kv';
import { createTokenFeature } from './tokens/token-feature';
import { UserService } from './users/user-service';
import { UserStore } from './users/user-store';
import { userRoutes } from './users/user-routes';

export interface ManagementSystem {
  server: http.Server;
  port: number;
  /** Graceful stop: stop accepting, finish in-flight requests and background work, close connections. */
  stop(): Promise<void>;
}

/** The one place that constructs things for the management service. */
export async function startManagement(config: ManagementConfig, logger: Logger, port = config.MANAGEMENT_PORT): Promise<ManagementSystem> {
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const nc = await connectNats({ url: config.NATS_URL, name: 'management', logger });
  const metrics = createRegistry('management');

  const userStore = new UserStore(mongo.db);
  await userStore.init();
  const tokens = await createTokenFeature({ users: userStore.collection, settings: config, logger });
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
  const users = new UserService({ store: userStore, announcer, vault: tokens.vault, cleanup: (id) => campaigns.deleteAllForOwner(id) });
  const parsers = bodyParsers({ limit: config.BODY_LIMIT });

  const app = createApp({
    logger,
    metrics,
    health: healthRouter({ mongo: () => mongo.ping(), nats: () => pingNats(nc) }),
    docs: apiDocsRouter(loadOpenApiDocument(path.join(__dirname, '..', 'openapi.yaml'))),
    adminAuth: adminAuth(config.ADMIN_TOKEN),
    admin: [accountRoutes(users), tokens.adminRouter],
    apiAuth: [bearerAuth(tokens.resolver)],
    bodyParsers: parsers,
    api: [userRoutes(users), ...campaigns.routers],
  });

  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const boundPort = await listen(server, port);
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
