import type http from 'node:http';
import path from 'node:path';
import {
  apiDocsRouter,
  closeServer,
  connectMongo,
  connectNats,
  createRegistry,
  healthRouter,
  loadOpenApiDocument,
  pingNats,
  startEarly,
  type Logger,
  type MongoHandle,
  type OnStartFailure,
  type ReadinessCheck,
  type StartingServer,
} from '@cm/platform';
import { createEventsApp, frontDoor } from './app';
import type { EventsConfig } from './config';
import { createConsumerFeature } from './consumer/consumer-feature';
import { createCountryFeature } from './country/country-feature';
import { createIngestFeature } from './ingest/ingest-feature';
import { createOperatorRoutes } from './operator/operator-routes';
import { createCampaignRegistryFeature } from './registry/campaign-registry-feature';
import type { CampaignLookup } from './registry/campaign-registry-watcher';
import type { OwnerLookup } from './registry/owner-registry-watcher';
import { createReportingFeature, type ReportingFeature } from './reporting/reporting-feature';
import { createRetentionJob } from './retention/retention-feature';
import { createRollupFeature, type RollupFeature } from './rollups/rollup-feature';
import { ensureStreams } from './stream/ensure-streams';
import type { Worker } from './worker';

export interface EventsSystem {
  server: http.Server;
  port: number;
  /** The in-memory owner registry of the ingest role (for diagnostics and tests). */
  owners?: OwnerLookup;
  /** The in-memory campaign registry of the reporting role. */
  campaigns?: CampaignLookup;
  /** Graceful stop: stop accepting, finish in-flight requests and the batch in hand, close connections. */
  stop(): Promise<void>;
}

/**
 * The one place that constructs things for the events service, for the roles in config.EVENTS_ROLES.
 * It listens first (/healthz 200, /readyz 503 naming the step in progress), then connects and
 * creates streams and buckets, retrying each with backoff until it succeeds (services start in
 * any order); `signal` cancels those waits. Resolves once the service is ready.
 */
export function startEvents(
  config: EventsConfig,
  logger: Logger,
  port = config.EVENTS_PORT,
  signal?: AbortSignal,
): Promise<EventsSystem> {
  return startEarly(
    { logger, signal, port, closeTimeoutMs: config.SHUTDOWN_TIMEOUT_MS },
    (boot, boundPort, onFailure) => startRoles(config, logger, boot, boundPort, onFailure),
  );
}

async function startRoles(
  config: EventsConfig,
  logger: Logger,
  boot: StartingServer,
  boundPort: number,
  onFailure: OnStartFailure,
): Promise<EventsSystem> {
  const roles = new Set(config.EVENTS_ROLES);
  const metrics = createRegistry('events');
  // ingest's country file is local: it loads, or the start ends here with a configuration error, before any connection
  const countries = roles.has('ingest')
    ? await createCountryFeature({
        path: config.COUNTRY_DB_PATH,
        reloadIntervalMs: config.COUNTRY_DB_RELOAD_INTERVAL_MS,
        metrics,
        logger,
      })
    : undefined;
  const nc = await boot.step('nats', () =>
    connectNats({ url: config.NATS_URL, name: `events-${config.EVENTS_ROLES.join('-')}`, logger }),
  );
  onFailure(() => nc.close());
  // ingest needs only NATS: it keeps taking events while MongoDB is down (they wait in the stream)
  const mongo: MongoHandle | undefined =
    roles.has('consumer') || roles.has('reporting') || roles.has('rollup')
      ? await boot.step('mongo', () => connectMongo(config.MONGO_URL, config.MONGO_DB))
      : undefined;
  if (mongo) onFailure(() => mongo.close());
  // a JetStream cluster still electing its leaders answers with timeouts and 503s for a while
  await boot.step('jetstream', () => ensureStreams(nc, config, logger, roles.has('consumer')));

  // the features, in start order; each role's background work starts once the server listens
  const ingest = countries ? await createIngestFeature({ nc, config, logger, metrics, boot, countries }) : undefined;
  // rollups: write marks for the consumer, the builder for the rollup role
  // index creation: retried like the other start-up steps (metrics are registered only after it succeeded)
  const rollups: RollupFeature | undefined = mongo
    ? await boot.step('rollups', () =>
        createRollupFeature({ db: mongo.db, config, metrics, logger, builder: roles.has('rollup') }),
      )
    : undefined;
  const consumer =
    roles.has('consumer') && mongo
      ? await createConsumerFeature({ nc, db: mongo.db, config, logger, metrics, rollups })
      : undefined;
  // one retention job per process with MongoDB: the consumer schedules its own, the operator endpoint runs it on demand
  const retention =
    consumer?.retention ??
    (mongo ? createRetentionJob({ db: mongo.db, config, logger, rollups: rollups?.retention }) : undefined);
  // a report's campaign filter and the scorecard resolve tokens in the registry's mirror; the pixel does not need it
  const campaignRegistry = roles.has('reporting')
    ? createCampaignRegistryFeature({ nc, config, logger, metrics })
    : undefined;
  let reporting: ReportingFeature | undefined;
  if (campaignRegistry && mongo) {
    reporting = await createReportingFeature({
      db: mongo.db,
      logger,
      metrics,
      config,
      broken: rollups?.broken,
      campaigns: campaignRegistry.campaigns,
    });
  }

  const checks: Record<string, ReadinessCheck> = {
    nats: () => pingNats(nc),
    ...(mongo ? { mongo: () => mongo.ping() } : {}),
    ...ingest?.checks,
    ...(campaignRegistry ? { campaign_registry: campaignRegistry.check } : {}),
  };
  const workers: Worker[] = [
    ...(ingest?.workers ?? []),
    ...(rollups?.worker ? [rollups.worker] : []),
    // stopped after the consumer (workers stop in reverse order): its last finished marks are stored
    ...(rollups ? [{ start: () => {}, stop: () => rollups.writeMarks.drain() }] : []),
    ...(consumer?.workers ?? []),
    ...(reporting ? [reporting] : []),
  ];

  // operator endpoints (pipeline status, retention now) on processes with MongoDB, next to the API key endpoints
  const app = createEventsApp({
    logger,
    metrics,
    health: healthRouter(checks),
    docs: apiDocsRouter(loadOpenApiDocument(path.join(__dirname, '..', 'openapi.yaml'))),
    routers: [
      ...(reporting?.routers ?? []),
      ...(mongo
        ? [createOperatorRoutes({ nc, db: mongo.db, config, logger, retention, rollups: rollups?.rebuild })]
        : []),
    ],
  });
  const { server } = boot;

  // the pixel answers 503 until the registry is replayed; waiting here makes a started system ready
  if (ingest) await boot.step('owner_registry', () => ingest.start());
  if (campaignRegistry) await boot.step('campaign_registry', () => campaignRegistry.start());
  boot.serve(frontDoor(ingest?.pixel, app));
  for (const worker of workers) await worker.start();
  logger.info('events listening', { port: boundPort, roles: config.EVENTS_ROLES });

  return {
    server,
    port: boundPort,
    owners: ingest?.owners,
    campaigns: campaignRegistry?.campaigns,
    async stop() {
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await ingest?.flush();
      for (const worker of [...workers].reverse()) await worker.stop();
      await ingest?.stop();
      await campaignRegistry?.stop();
      await nc.drain();
      await mongo?.close();
    },
  };
}
