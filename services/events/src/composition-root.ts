import http from 'node:http';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { v7 as uuidv7 } from 'uuid';
import { eventBatchSubject } from '@cm/contracts';
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
  TokenBuckets,
  type Logger,
  type MongoHandle,
  type OnStartFailure,
  type ReadinessCheck,
  type StartingServer,
} from '@cm/platform';
import { createEventsApp, frontDoor } from './app';
import type { EventsConfig } from './config';
import { createBatchHandler } from './consumer/batch-handler';
import { BucketWriter } from './consumer/bucket-writer';
import { createConsumerMetrics } from './consumer/consumer-metrics';
import { DeadLetters } from './consumer/dead-letters';
import { EventConsumer } from './consumer/event-consumer';
import { createCountryFeature } from './country/country-feature';
import { DeviceDetector } from './ingest/device-detector';
import { EventPublisher } from './ingest/event-publisher';
import { GroupCommitPublisher } from './ingest/group-commit-publisher';
import { JetStreamSender } from './ingest/jetstream-sender';
import { createIngestMetrics } from './ingest/ingest-metrics';
import { retentionMetrics, watchRegistryMetrics } from './operations-metrics';
import { createPixelHandler } from './ingest/pixel-handler';
import { PixelIngest } from './ingest/pixel-ingest';
import { DEVELOPMENT_VISITOR_ID_KEY, VisitorIdentity } from './ingest/visitor-identity';
import { VisitorSalts } from './ingest/visitor-salts';
import { createOperatorRoutes } from './operator/operator-routes';
import { createCampaignRegistryFeature, type CampaignRegistryFeature } from './registry/campaign-registry-feature';
import type { CampaignLookup } from './registry/campaign-registry-watcher';
import { OwnerRegistryWatcher, type OwnerLookup } from './registry/owner-registry-watcher';
import { createReportingFeature, type ReportingFeature } from './reporting/reporting-feature';
import { RetentionJob } from './retention/retention-job';
import { bucketInsertTimeoutMs, createRollupFeature, type RollupFeature } from './rollups/rollup-feature';
import { ensureStreams } from './stream/ensure-streams';
import { streamFillMetrics } from './stream/stream-metrics';

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

/** A background part of a role: started after the server listens, stopped after it closed. */
interface Worker {
  start(): void | Promise<void>;
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

  const checks: Record<string, ReadinessCheck> = { nats: () => pingNats(nc) };
  if (mongo) checks.mongo = () => mongo.ping();
  const workers: Worker[] = [];

  let pixel: http.RequestListener | undefined;
  let registry: OwnerRegistryWatcher | undefined;
  let publisher: EventPublisher | undefined;
  if (roles.has('ingest') && countries) {
    registry = new OwnerRegistryWatcher(nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS, logger);
    const owners = registry;
    checks.owner_registry = async () => {
      if (!owners.isReady()) throw new Error('owner registry not replayed yet');
    };
    const ingestMetrics = createIngestMetrics(metrics);
    const sender = new JetStreamSender(nc, {
      attemptTimeoutMs: config.PUBLISH_ATTEMPT_TIMEOUT_MS,
      onRetry: ingestMetrics.retried,
    });
    const batches = new GroupCommitPublisher(sender, {
      subject: eventBatchSubject(config.EVENTS_SUBJECT_PREFIX),
      window: config.INGEST_PUBLISH_WINDOW,
      maxEvents: config.INGEST_BATCH_MAX_EVENTS,
      maxBytes: config.INGEST_BATCH_MAX_BYTES,
      timeoutMs: config.PUBLISH_TIMEOUT_MS,
      maxWaiting: config.INGEST_MAX_WAITING_EVENTS,
      newId: uuidv7,
      onBatch: ingestMetrics.batch,
    });
    publisher = new EventPublisher(sender, batches, config.PUBLISH_TIMEOUT_MS);
    publisher.start();
    watchRegistryMetrics(metrics, owners);
    const salts = new VisitorSalts(
      nc,
      {
        bucket: config.VISITOR_SALT_BUCKET,
        replicas: config.EVENTS_STREAM_REPLICAS,
        period: config.VISITOR_SALT_PERIOD,
      },
      logger,
    );
    // creates the bucket and loads this period's salt, so the first hits do not wait for it
    await boot.step('visitor_salts', async () => void (await salts.current()));
    if (config.VISITOR_ID_KEY === undefined)
      logger.warn('VISITOR_ID_KEY is not set: vid hashes use the fixed development key (production requires one)');
    if (countries.reloader) workers.push(countries.reloader);
    const ingest = new PixelIngest({
      owners,
      sink: publisher,
      devices: new DeviceDetector(),
      newId: uuidv7,
      perClient: new TokenBuckets({ perSecond: config.PIXEL_RATE_PER_IP, burst: config.PIXEL_BURST_PER_IP }),
      perOwner: new TokenBuckets({ perSecond: config.PIXEL_RATE_PER_OWNER, burst: config.PIXEL_BURST_PER_OWNER }),
      visitors: new VisitorIdentity(config.VISITOR_ID_KEY ?? DEVELOPMENT_VISITOR_ID_KEY, salts),
      countries: countries.lookup,
    });
    pixel = createPixelHandler({
      ingest,
      metrics: ingestMetrics,
      logger,
      trustedProxyHops: config.PIXEL_TRUSTED_PROXY_HOPS,
    });
  }

  // rollups: write marks for the consumer, the builder for the rollup role
  // index creation: retried like the other start-up steps (metrics are registered only after it succeeded)
  const rollups: RollupFeature | undefined = mongo
    ? await boot.step('rollups', () =>
        createRollupFeature({ db: mongo.db, config, metrics, logger, builder: roles.has('rollup') }),
      )
    : undefined;
  if (rollups?.worker) workers.push(rollups.worker);
  // stopped after the consumer (workers stop in reverse order): its last finished marks are stored
  if (rollups) workers.push({ start: () => {}, stop: () => rollups.writeMarks.drain() });

  // one retention job per process with MongoDB, rollups included: the consumer role schedules it,
  // the operator endpoint runs the same job on demand
  let writer: BucketWriter | undefined;
  const retention = mongo
    ? new RetentionJob(
        mongo.db,
        {
          prefix: config.BUCKET_PREFIX,
          retentionDays: config.RETENTION_DAYS,
          intervalMs: config.RETENTION_INTERVAL_MS,
          onDropped: (b) => writer?.forget(b),
          onPass: roles.has('consumer') ? retentionMetrics(metrics) : undefined,
          rollups: rollups?.retention,
        },
        logger,
      )
    : undefined;

  if (roles.has('consumer') && mongo && retention) {
    const writeConcern = { w: config.EVENTS_WRITE_CONCERN_W, journal: config.EVENTS_WRITE_CONCERN_J };
    writer = new BucketWriter(
      mongo.db,
      logger,
      writeConcern,
      rollups?.writeMarks,
      bucketInsertTimeoutMs(config.ROLLUP_ABANDON_MS),
    );
    const handler = createBatchHandler({
      writer,
      deadLetters: new DeadLetters(nc, config.EVENTS_DEAD_LETTER_SUBJECT, config.PUBLISH_TIMEOUT_MS),
      config,
    });
    workers.push(
      new EventConsumer({ js: jetstream(nc), handler, metrics: createConsumerMetrics(metrics), logger, config }),
    );
    // no API check: the stream's state is read lazily, at scrape time
    streamFillMetrics(metrics, await jetstreamManager(nc, { checkAPI: false }), config.EVENTS_STREAM);
    workers.push(retention);
  }

  // a report's campaign filter and the scorecard resolve tokens in the registry's mirror; the pixel does not need it
  let campaignRegistry: CampaignRegistryFeature | undefined;
  let reporting: ReportingFeature | undefined;
  if (roles.has('reporting') && mongo) {
    campaignRegistry = createCampaignRegistryFeature({ nc, config, logger, metrics });
    checks.campaign_registry = campaignRegistry.check;
    reporting = await createReportingFeature({
      db: mongo.db,
      logger,
      metrics,
      config,
      broken: rollups?.broken,
      campaigns: campaignRegistry.campaigns,
    });
    workers.push(reporting);
  }

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
  if (registry) await boot.step('owner_registry', () => registry.start());
  if (campaignRegistry) await boot.step('campaign_registry', () => campaignRegistry.start());
  boot.serve(frontDoor(pixel, app));
  for (const worker of workers) await worker.start();
  logger.info('events listening', { port: boundPort, roles: config.EVENTS_ROLES });

  return {
    server,
    port: boundPort,
    owners: registry,
    campaigns: campaignRegistry?.campaigns,
    async stop() {
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await publisher?.stop();
      for (const worker of [...workers].reverse()) await worker.stop();
      await registry?.stop();
      await campaignRegistry?.stop();
      await nc.drain();
      await mongo?.close();
    },
  };
}
