import http from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import type { Db } from 'mongodb';
import { v7 } from 'uuid';
import winston from 'winston';
import {
  closeServer,
  connectMongo,
  createLogger,
  createRegistry,
  ensureIndexes,
  errorMiddleware,
  listen,
  metricsRouter,
  notFoundHandler,
  requestContext,
} from '@cm/platform';
import { httpRequester, uniqueName, type HttpResult, type TestRequest } from '@cm/testkit';
import { loadEventsConfig, type EventsConfig } from '../../src/config';
import type { CampaignLookup } from '../../src/registry/campaign-registry-watcher';
import { createReportingFeature } from '../../src/reporting/reporting-feature';
import { BUCKET_INDEXES } from '../../src/storage/bucket-indexes';
import { bucketName } from '../../src/storage/bucket-naming';
import type { EventDocument } from '../../src/storage/event-document';

export const REPORTING_ADMIN_TOKEN = 'reporting-admin-token-0123456789';

export interface ReportingHarness {
  baseUrl: string;
  config: EventsConfig;
  /** The harness's own handle on the same database, for arranging and asserting. */
  db: Db;
  /** Every log line the app wrote (level http and up), as JSON text. */
  logLines: string[];
  request: TestRequest;
  /** POST /api/v1/events/?api_key=... with a JSON body. */
  report<T = any>(apiKey: string | undefined, body: unknown): Promise<HttpResult<T>>;
  /** POST /api/v1/events/scorecard/?api_key=... with a JSON body. */
  scorecard<T = any>(apiKey: string | undefined, body: unknown): Promise<HttpResult<T>>;
  /** Creates an API key through the admin endpoint and returns the create response. */
  createKey(ownerIds: string[]): Promise<{ id: string; api_key: string; owner_ids: string[] }>;
  /** Inserts stored events straight into their day buckets (as the consumer would), indexes included. */
  insertEvents(
    events: Array<Partial<EventDocument> & Pick<EventDocument, 'owner_id' | 'created'>>,
    bucketOf?: (e: EventDocument) => string,
  ): Promise<EventDocument[]>;
  stop(): Promise<void>;
  /** Stops the server and closes the connection, keeping the database (another harness shares it). */
  stopServerOnly(): Promise<void>;
}

let ownerCounter = 0;

/** A fresh owner id (digits) per call, so tests never see each other's events. */
export function newOwnerId(): string {
  return `${Date.now()}${String(++ownerCounter).padStart(4, '0')}`;
}

/**
 * The reporting feature's routers on a real Express app (platform middleware around them, as the
 * events app mounts them) on port 0, against the test run's MongoDB with its own database.
 */
export async function startReportingHarness(
  env: Record<string, string> = {},
  opts: { maxGroupBytes?: number; campaigns?: CampaignLookup } = {},
): Promise<ReportingHarness> {
  const config = loadEventsConfig({
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('reports'),
    ADMIN_TOKEN: REPORTING_ADMIN_TOKEN,
    ...env,
  });
  const logLines: string[] = [];
  const logger = createLogger({ service: 'reporting-test', level: 'http' });
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) }),
    }),
  );

  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const metrics = createRegistry('events-reporting-test');
  const feature = await createReportingFeature({
    db: mongo.db,
    logger,
    metrics,
    config,
    maxGroupBytes: opts.maxGroupBytes,
    // a test that reads no campaign needs no registry: one that knows no campaign
    campaigns: opts.campaigns ?? { isReady: () => true, campaign: () => undefined },
  });
  const app = express();
  app.use(requestContext(logger));
  app.use(metricsRouter(metrics));
  app.use(...feature.routers);
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger));
  const server = http.createServer(app);
  const port = await listen(server, 0, '127.0.0.1');
  await feature.start();
  const baseUrl = `http://127.0.0.1:${port}`;

  const request = httpRequester(baseUrl);

  return {
    baseUrl,
    config,
    db: mongo.db,
    logLines,
    request,
    report: (apiKey, body) =>
      request('POST', `/api/v1/events/${apiKey === undefined ? '' : `?api_key=${encodeURIComponent(apiKey)}`}`, {
        body,
      }),
    scorecard: (apiKey, body) =>
      request(
        'POST',
        `/api/v1/events/scorecard/${apiKey === undefined ? '' : `?api_key=${encodeURIComponent(apiKey)}`}`,
        { body },
      ),
    async createKey(ownerIds) {
      const res = await request('POST', '/admin/v1/api-keys', {
        token: REPORTING_ADMIN_TOKEN,
        body: { owner_ids: ownerIds },
      });
      if (res.status !== 201) throw new Error(`createKey: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async insertEvents(events, bucketOf = (e) => bucketName(config.BUCKET_PREFIX, e.created)) {
      const docs: EventDocument[] = events.map((e) => ({
        _id: v7(),
        name: 'impression',
        url: '',
        content_id: '',
        device_type: 'desktop',
        bot: false,
        metadata: {},
        ...e,
      }));
      const byBucket = new Map<string, EventDocument[]>();
      for (const doc of docs) byBucket.set(bucketOf(doc), [...(byBucket.get(bucketOf(doc)) ?? []), doc]);
      for (const [bucket, batch] of byBucket) {
        const collection = mongo.db.collection<EventDocument>(bucket);
        await ensureIndexes(collection, BUCKET_INDEXES);
        await collection.insertMany(batch, { ordered: false });
      }
      return docs;
    },
    async stop() {
      await closeServer(server, 2000);
      await feature.stop();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
    async stopServerOnly() {
      await closeServer(server, 2000);
      await feature.stop();
      await mongo.close();
    },
  };
}
