import type http from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import { eventBatchSubject } from '@cm/contracts';
import {
  TokenBuckets,
  type Logger,
  type NatsConnection,
  type ReadinessCheck,
  type Registry,
  type StartingServer,
} from '@cm/platform';
import type { EventsConfig } from '../config';
import type { CountryFeature } from '../country/country-feature';
import { watchRegistryMetrics } from '../operations-metrics';
import { OwnerRegistryWatcher, type OwnerLookup } from '../registry/owner-registry-watcher';
import type { Worker } from '../worker';
import { DeviceDetector } from './device-detector';
import { EventPublisher } from './event-publisher';
import { GroupCommitPublisher } from './group-commit-publisher';
import { createIngestMetrics } from './ingest-metrics';
import { JetStreamSender } from './jetstream-sender';
import { createPixelHandler } from './pixel-handler';
import { PixelIngest } from './pixel-ingest';
import { DEVELOPMENT_VISITOR_ID_KEY, VisitorIdentity } from './visitor-identity';
import { VisitorSalts } from './visitor-salts';

export type IngestConfig = Pick<
  EventsConfig,
  | 'OWNER_REGISTRY_BUCKET'
  | 'OWNER_REGISTRY_REPLICAS'
  | 'EVENTS_SUBJECT_PREFIX'
  | 'EVENTS_STREAM_REPLICAS'
  | 'PUBLISH_ATTEMPT_TIMEOUT_MS'
  | 'PUBLISH_TIMEOUT_MS'
  | 'INGEST_PUBLISH_WINDOW'
  | 'INGEST_BATCH_MAX_EVENTS'
  | 'INGEST_BATCH_MAX_BYTES'
  | 'INGEST_MAX_WAITING_EVENTS'
  | 'VISITOR_SALT_BUCKET'
  | 'VISITOR_SALT_PERIOD'
  | 'VISITOR_ID_KEY'
  | 'PIXEL_RATE_PER_IP'
  | 'PIXEL_BURST_PER_IP'
  | 'PIXEL_RATE_PER_OWNER'
  | 'PIXEL_BURST_PER_OWNER'
  | 'PIXEL_TRUSTED_PROXY_HOPS'
>;

export interface IngestFeature {
  /** `GET /v1/v.gif` (and its beacon and redirect forms), served in front of the Express app. */
  pixel: http.RequestListener;
  /** The owner registry as the pixel sees it. */
  owners: OwnerLookup;
  /** Readiness: the pixel answers 503 until the owner registry is replayed. */
  checks: Record<string, ReadinessCheck>;
  /** The country file's reloader, when there is one. */
  workers: Worker[];
  /** Replays the owner registry; resolves once the pixel can tell owners apart. */
  start(): Promise<void>;
  /** Sends the events still waiting for their batch: first to stop once the server closed. */
  flush(): Promise<void>;
  /** Stops watching the owner registry: after the other parts of the process stopped. */
  stop(): Promise<void>;
}

/**
 * Wires the ingest role: the owner registry mirror, the publishing path (a JetStream sender under
 * a group commit publisher), the visitor salts and identity, the flood limits, the country lookup
 * and the pixel handler with its metrics. Publishing starts here; the salt of the current period
 * is loaded as a start-up step, so the first hits do not wait for it.
 */
export async function createIngestFeature(deps: {
  nc: NatsConnection;
  config: IngestConfig;
  logger: Logger;
  metrics: Registry;
  boot: Pick<StartingServer, 'step'>;
  countries: CountryFeature;
}): Promise<IngestFeature> {
  const { nc, config, logger, metrics } = deps;
  const owners = new OwnerRegistryWatcher(nc, config.OWNER_REGISTRY_BUCKET, config.OWNER_REGISTRY_REPLICAS, logger);
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
  const publisher = new EventPublisher(sender, batches, config.PUBLISH_TIMEOUT_MS);
  publisher.start();
  watchRegistryMetrics(metrics, owners);
  const salts = new VisitorSalts(
    nc,
    { bucket: config.VISITOR_SALT_BUCKET, replicas: config.EVENTS_STREAM_REPLICAS, period: config.VISITOR_SALT_PERIOD },
    logger,
  );
  // creates the bucket and loads this period's salt, so the first hits do not wait for it
  await deps.boot.step('visitor_salts', async () => void (await salts.current()));
  if (config.VISITOR_ID_KEY === undefined)
    logger.warn('VISITOR_ID_KEY is not set: vid hashes use the fixed development key (production requires one)');
  const ingest = new PixelIngest({
    owners,
    sink: publisher,
    devices: new DeviceDetector(),
    newId: uuidv7,
    perClient: new TokenBuckets({ perSecond: config.PIXEL_RATE_PER_IP, burst: config.PIXEL_BURST_PER_IP }),
    perOwner: new TokenBuckets({ perSecond: config.PIXEL_RATE_PER_OWNER, burst: config.PIXEL_BURST_PER_OWNER }),
    visitors: new VisitorIdentity(config.VISITOR_ID_KEY ?? DEVELOPMENT_VISITOR_ID_KEY, salts),
    countries: deps.countries.lookup,
  });
  return {
    pixel: createPixelHandler({
      ingest,
      metrics: ingestMetrics,
      logger,
      trustedProxyHops: config.PIXEL_TRUSTED_PROXY_HOPS,
    }),
    owners,
    checks: {
      owner_registry: async () => {
        if (!owners.isReady()) throw new Error('owner registry not replayed yet');
      },
    },
    workers: deps.countries.reloader ? [deps.countries.reloader] : [],
    start: () => owners.start(),
    flush: () => publisher.stop(),
    stop: () => owners.stop(),
  };
}
