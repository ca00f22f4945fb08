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
  pingNats,
  startEarly,
  type Logger,
  type OnStartFailure,
  type StartingServer,
} from '@cm/platform';
import { accountRoutes } from './accounts/account-routes';
import { createApp } from './app';
import { bearerAuth } from './auth/bearer-auth';
import { createCampaignRegistryFeature } from './campaign-registry/campaign-registry-feature';
import { createCampaignFeature } from './campaigns/campaign-feature';
import { canonicalContentUrl } from './content/content-url';
import type { ManagementConfig } from './config';
import { apiRateLimits } from './limits/api-rate-limits';
import { ConcurrencyGate } from './limits/concurrency-gate';
import { PageCursors } from './pagination/page-cursors';
import { redirectHostRoutes } from './redirect-hosts/redirect-host-routes';
import { RedirectHostService } from './redirect-hosts/redirect-host-service';
import { registryAdminRoutes } from './registry/registry-admin-routes';
import { createRegistryFeature } from './registry/registry-feature';
import { createTokenFeature } from './tokens/token-feature';
import { hashPassword } from './users/secrets';
import { UserService } from './users/user-service';
import { MongoUserStore } from './users/user-store';
import { userRoutes } from './users/user-routes';
import { DEFAULT_TIMEZONE } from './validation/timezones';

export interface ManagementSystem {
  server: http.Server;
  port: number;
  /** Graceful stop: stop accepting, finish in-flight requests and background work, close connections. */
  stop(): Promise<void>;
}

/** What tests may inject; production passes nothing. */
export interface ManagementOptions {
  /** The clock of the campaign and content services (created and last_modified times, "today"). */
  now?: () => Date;
}

/**
 * The one place that constructs things for the management service. It listens first (/healthz
 * 200, /readyz 503 naming the step in progress), then connects, retrying each dependency with
 * backoff until it answers (services start in any order); `signal` cancels those waits.
 * Resolves once the service is ready.
 */
export function startManagement(
  config: ManagementConfig,
  logger: Logger,
  port = config.MANAGEMENT_PORT,
  signal?: AbortSignal,
  options: ManagementOptions = {},
): Promise<ManagementSystem> {
  return startEarly(
    { logger, signal, port, closeTimeoutMs: config.SHUTDOWN_TIMEOUT_MS },
    (boot, boundPort, onFailure) => startParts(config, logger, boot, boundPort, onFailure, options),
  );
}

async function startParts(
  config: ManagementConfig,
  logger: Logger,
  boot: StartingServer,
  boundPort: number,
  onFailure: OnStartFailure,
  options: ManagementOptions,
): Promise<ManagementSystem> {
  const mongo = await boot.step('mongo', () => connectMongo(config.MONGO_URL, config.MONGO_DB));
  onFailure(() => mongo.close());
  const nc = await boot.step('nats', () => connectNats({ url: config.NATS_URL, name: 'management', logger }));
  onFailure(() => nc.close());
  const metrics = createRegistry('management');

  const userStore = new MongoUserStore(mongo.db);
  await boot.step('mongo_indexes', () => userStore.init());
  const tokens = await createTokenFeature({ users: userStore.collection, settings: config, logger });
  const cursors = new PageCursors(tokens.deriveKey('page cursors'));
  const campaignRegistry = await createCampaignRegistryFeature({
    nc,
    db: mongo.db,
    config,
    logger,
    metrics,
    // the events service matches events by their canonical page URL: the campaign's URLs in the same form
    canonicalUrl: (url) => canonicalContentUrl(url) ?? url,
  });
  const campaigns = await createCampaignFeature({
    db: mongo.db,
    logger,
    config,
    metrics,
    timezoneOf: async (id) => (await userStore.findById(id))?.timezone || DEFAULT_TIMEZONE,
    hostsChanged: (ownerId) => registry.announcer.ownerChanged(ownerId),
    campaignChanged: (token) => campaignRegistry.announce(token),
    placeForHost: (ownerId, host) => redirectHosts.placeFor(ownerId, host),
    recordRevision: (ownerId) => redirectHosts.revisionOf(ownerId),
    cursors,
    now: options.now,
  });
  const registry = await createRegistryFeature({
    nc,
    db: mongo.db,
    config,
    logger,
    metrics,
    contentHosts: (ownerId) => campaigns.contentHosts(ownerId),
    contentHostsByOwner: (ownerIds) => campaigns.contentHostsByOwner(ownerIds),
    backfillHosts: () => campaigns.backfillHosts(),
    cleanup: (ownerId) => campaignRegistry.deleteAllForOwner(ownerId),
  });
  // half of libuv's default pool of 4: title fetches' DNS lookups keep threads of their own
  const scrypt = new ConcurrencyGate(2);
  const users = new UserService({
    store: userStore,
    announcer: registry.announcer,
    settingsChanged: (uniqueId) => campaignRegistry.ownerChanged(uniqueId),
    vault: tokens.vault,
    maxSubUsers: config.QUOTA_SUB_USERS_PER_ACCOUNT,
    cursors,
    hashPassword: (password) => scrypt.run(() => hashPassword(password)),
  });
  const redirectHosts = new RedirectHostService({
    store: userStore,
    contentHosts: (ownerId) => campaigns.contentHosts(ownerId),
    announcer: registry.announcer,
    quota: config.QUOTA_REDIRECT_HOSTS_PER_USER,
  });
  const parsers = bodyParsers({ limit: config.BODY_LIMIT });
  const rateLimited = new prom.Counter({
    name: 'management_rate_limited_total',
    help: 'Requests refused with 429, by limit (user, expensive, auth_failures)',
    labelNames: ['limit'],
    registers: [metrics],
  });
  const limits = apiRateLimits({
    perUserPerMinute: config.API_RATE_LIMIT_PER_MINUTE,
    expensivePerMinute: config.API_EXPENSIVE_RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: config.AUTH_FAILURE_RATE_LIMIT_PER_MINUTE,
    onLimited: (limit) => rateLimited.inc({ limit }),
  });

  const app = createApp({
    logger,
    metrics,
    health: healthRouter({ mongo: () => mongo.ping(), nats: () => pingNats(nc) }),
    docs: apiDocsRouter(loadOpenApiDocument(path.join(__dirname, '..', 'openapi.yaml'))),
    adminAuth: adminAuth(config.ADMIN_TOKEN),
    admin: [
      accountRoutes(users),
      tokens.adminRouter,
      registryAdminRoutes({ owners: registry.reconciler, campaigns: campaignRegistry.reconciler }),
    ],
    apiAuth: [bearerAuth(tokens.resolver, limits.authFailures), limits.perUser],
    bodyParsers: parsers,
    api: [userRoutes(users, limits.expensive), redirectHostRoutes(redirectHosts), ...campaigns.routers],
    trustProxy: config.TRUST_PROXY,
  });

  const { server } = boot;
  boot.serve(app);
  registry.start();
  campaignRegistry.start();
  await campaigns.start();
  logger.info('management listening', { port: boundPort });

  return {
    server,
    port: boundPort,
    async stop() {
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await campaigns.stop();
      await registry.stop();
      await campaignRegistry.stop();
      await nc.drain();
      await mongo.close();
    },
  };
}
