import http from 'node:http';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { v7 as uuidv7 } from 'uuid';
import {
  apiDocsRouter,
  closeServer,
  connectMongo,
  connectNats,
  createRegistry,
  healthRouter,
  listen,
  loadOpenApiDocument,
  pingNats,
  type Logger,
  type MongoHandle,
  type ReadinessCheck,
} from '@cm/platform';
import { createEventsApp, frontDoor } from './app';
import type { EventsConfig } from './config';
import { createBatchHandler } from './consumer/batch-handler';
import { BucketWriter } from './consumer/bucket-writer';
import { createConsumerMetrics } from './consumer/consumer-metrics';
import { DeadLetters } from './consumer/dead-letters';
import { EventConsumer } from './consumer/event-consumer';
import { AckedPublisher } from './ingest/acked-publisher';
import { DeviceDetector } from './ingest/device-detector';
import { EventPublisher } from './ingest/event-publisher';
import { createIngestMetrics } from './ingest/ingest-metrics';
import { retentionMetrics, watchRegistryMetrics } from './operations-metrics';
import { createPixelHandler } from './ingest/pixel-handler';
import { PixelIngest } from './ingest/pixel-ingest';
import { createOperatorRoutes } from './operator/operator-routes';
import { OwnerRegistryWatcher, type OwnerLookup } from './registry/owner-registry-watcher';
import { createReportingFeature, type ReportingFeature } from './reporting/reporting-feature';
import { RetentionJob } from './retention/retention-job';
import { createRollupFeature, type RollupFeature } from './rollups/rollup-feature';
import { ensureStreams } from './stream/ensure-streams';

export interface EventsSystem {
  server: http.Server;
  port: number;
  /** The in-memory owner registry of the ingest role (for diagnostics and tests). */
  owners?: OwnerLookup;
  /** Graceful stop: stop accepting, finish in-flight requests and the batch in hand, close connections. */
  stop(): Promise<void>;
}

/** A background part of a role: started after the server listens, stopped after it closed. */
interface Worker {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** The one place that constructs things for the events service, for the roles in config.EVENTS_ROLES. */
export async function startEvents(config: EventsConfig, logger: Logger, port = config.EVENTS_PORT): Promise<EventsSystem> {
  const roles = new Set(config.EVENTS_ROLES);
  const metrics = createRegistry('events');
  const nc = await connectNats({ url: config.NATS_URL, name: `events-${config.EVENTS_ROLES.join('-')}`, logger });
  // ingest needs only NATS: it keeps taking events while MongoDB is down (they wait in the stream)
  const mongo: MongoHandle | undefined =
    roles.has('consumer') || roles.has('reporting') || roles.has('rollup') ? await connectMongo(config.MONGO_URL, config.MONGO_DB) : undefined;
  await ensureStreams(nc, config, logger, roles.has('consumer'));

  const checks: Record<string, ReadinessCheck> = { nats: () => pingNats(nc) };
  if (mongo) checks.mongo = () => mongo.ping();
  const workers: Worker[] = [];

  let pixel: http.RequestListener | undefined;
  let registry: OwnerRegistryWatcher | undefined;
  let publisher: EventPublisher | undefined;
  if (roles.has('ingest')) {
    registry = new OwnerRegistryWatcher(nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS, logger);
    const owners = registry;
    checks.owner_registry = async () => {
      if (!owners.isReady()) throw new Error('owner registry not replayed yet');
    };
    // PUBLISH_TIMEOUT_MS bounds the wait for the stream's ack; past it the pixel answers 503
    publisher = new EventPublisher(nc, new AckedPublisher(nc, config.PUBLISH_TIMEOUT_MS), config.EVENTS_SUBJECT_PREFIX);
    publisher.start();
    const ingestMetrics = createIngestMetrics(metrics);
    watchRegistryMetrics(metrics, owners);
    const ingest = new PixelIngest({ owners, sink: publisher, devices: new DeviceDetector(), newId: uuidv7, onPublished: ingestMetrics.observePublish });
    pixel = createPixelHandler(ingest, ingestMetrics, logger);
  }

  // rollups: write marks for the consumer, the builder for the rollup role
  const rollups: RollupFeature | undefined = mongo ? await createRollupFeature({ db: mongo.db, config, metrics, logger, builder: roles.has('rollup') }) : undefined;
  if (rollups?.worker) workers.push(rollups.worker);
  // stopped after the consumer (workers stop in reverse order): its last finished marks are stored
  if (rollups) workers.push({ start: () => {}, stop: () => rollups.marks.drain() });

  if (roles.has('consumer') && mongo) {
    const writer = new BucketWriter(mongo.db, logger, rollups?.marks);
    const handler = createBatchHandler({ writer, deadLetters: new DeadLetters(nc, config.EVENTS_DEAD_LETTER_SUBJECT, config.PUBLISH_TIMEOUT_MS), config });
    workers.push(new EventConsumer({ js: jetstream(nc), handler, metrics: createConsumerMetrics(metrics), logger, config }));
    workers.push(
      new RetentionJob(
        mongo.db,
        {
          prefix: config.BUCKET_PREFIX,
          retentionDays: config.RETENTION_DAYS,
          intervalMs: config.RETENTION_INTERVAL_MS,
          onDropped: (b) => writer.forget(b),
          onPass: retentionMetrics(metrics),
          rollups: rollups?.retention,
        },
        logger,
      ),
    );
  }

  let reporting: ReportingFeature | undefined;
  if (roles.has('reporting') && mongo) {
    reporting = await createReportingFeature({ db: mongo.db, logger, metrics, config });
    workers.push(reporting);
  }

  // operator endpoints (pipeline status, retention now) on processes with MongoDB, next to the API key endpoints
  const app = createEventsApp({
    logger,
    metrics,
    health: healthRouter(checks),
    docs: apiDocsRouter(loadOpenApiDocument(path.join(__dirname, '..', 'openapi.yaml'))),
    routers: [...(reporting?.routers ?? []), ...(mongo ? [createOperatorRoutes({ nc, db: mongo.db, config, logger, rollups: rollups?.rebuild })] : [])],
  });
  const server = http.createServer(frontDoor(pixel, app));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  // the pixel answers 503 until the registry is replayed; waiting here makes a started system ready
  await registry?.start();
  const boundPort = await listen(server, port);
  for (const worker of workers) await worker.start();
  logger.info('events listening', { port: boundPort, roles: config.EVENTS_ROLES });

  return {
    server,
    port: boundPort,
    owners: registry,
    async stop() {
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await publisher?.stop();
      for (const worker of [...workers].reverse()) await worker.stop();
      await registry?.stop();
      await nc.drain();
      await mongo?.close();
    },
  };
}
