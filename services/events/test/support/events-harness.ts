import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { MongoClient, type Db } from 'mongodb';
import { v7 } from 'uuid';
import {
  type CampaignRecord,
  encodeEventBatch,
  encodeOwnerRecord,
  eventBatchSubject,
  type EventMessage,
  type EventRecord,
} from '@cm/contracts';
import { createLogger, type Logger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { startEvents, type EventsSystem } from '../../src/composition-root';
import { loadEventsConfig, type EventsConfig } from '../../src/config';
import { bucketDay } from '../../src/storage/bucket-naming';
import { writeCampaignRecord } from './campaign-kv';
import type { EventDocument } from '../../src/storage/event-document';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface EventsHarness {
  baseUrl: string;
  config: EventsConfig;
  system: EventsSystem;
  /** The test's own handles on the same database and broker, for arranging and asserting. */
  db: Db;
  nc: NatsConnection;
  js: JetStreamClient;
  /** GET (or another method) on the pixel with these parameters; redirects are not followed. */
  pixel(params: Record<string, string> | string, init?: RequestInit): Promise<Response>;
  /** Puts an owner id (with the hosts its clicks may redirect to) into the registry bucket and waits until the ingest role knows it. */
  registerOwner(ownerId?: string, redirectHosts?: string[]): Promise<string>;
  removeOwner(ownerId: string): Promise<void>;
  /** Puts a campaign record into the campaign registry bucket (as management would) and waits until the reporting role holds it. */
  publishCampaign(record: CampaignRecord): Promise<void>;
  /** Publishes a v1 event message straight to the stream (tests choose ids and timestamps). */
  publishEvent(msg: Partial<EventMessage> & { owner_id: string }, msgID?: string): Promise<EventMessage>;
  /** Publishes a v2 batch message as ingest would (items are completed into events unless `raw`); returns the items as sent. */
  publishBatch(
    items: ((Partial<EventRecord> & { owner_id: string }) | { raw: unknown })[],
    msgID?: string,
  ): Promise<unknown[]>;
  /** Every stored event in every day bucket, optionally only those matching `filter`. */
  storedEvents(filter?: Partial<Record<keyof EventDocument, unknown>>): Promise<EventDocument[]>;
  /** Polls storedEvents until `count` documents match (or the timeout passes) and returns them. */
  waitForStored(
    count: number,
    filter?: Partial<Record<keyof EventDocument, unknown>>,
    timeoutMs?: number,
  ): Promise<EventDocument[]>;
  /**
   * Sends a valid pixel hit for `ownerId` after whatever the test sent, waits until it is stored, then returns what `filter` matches:
   * the consumer stores in stream order, so "nothing matches" then means nothing was stored rather than "not yet".
   */
  storedAfterMarker(ownerId: string, filter: Partial<Record<keyof EventDocument, unknown>>): Promise<EventDocument[]>;
  /** Stops the system (unless stopped already) and starts it again with the same configuration. */
  restart(): Promise<void>;
  /** Stops the system only (the harness handles stay open). */
  stopSystem(): Promise<void>;
  stop(): Promise<void>;
}

/** A desktop Chrome User-Agent: hits sent with it are counted (tools' own agents are bots). */
export const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

let tagCounter = 0;

/** A value unique to one test (e.g. a content_id), so each test finds exactly its own events. */
export function uniqueTag(prefix = 'c'): string {
  return `${prefix}${Date.now()}-${++tagCounter}`;
}

let ownerCounter = 0;

export function newOwnerId(): string {
  return `${Date.now()}${String(++ownerCounter).padStart(4, '0')}${Math.floor(Math.random() * 1000)}`;
}

/** A valid event of now with a fresh id (the fields a test does not care about). */
function newEvent(): Omit<EventRecord, 'owner_id'> {
  return {
    id: v7(),
    name: 'impression',
    url: '',
    content_id: '',
    device_type: 'desktop',
    bot: false,
    metadata: {},
    created: new Date().toISOString(),
  };
}

/**
 * How long the harness waits for a signal (an owner in the registry, a stored event, a settled
 * consumer) before failing: a bound on waiting, never a claim about speed, so a busy machine
 * only makes a test slower.
 */
export const SIGNAL_WAIT_MS = 20_000;

/** Waits until the writer consumer has delivered and settled (acked, nak'ed or terminated) every stored message. */
export async function consumerSettled(
  h: Pick<EventsHarness, 'nc' | 'config'>,
  timeoutMs = SIGNAL_WAIT_MS,
): Promise<void> {
  const jsm = await jetstreamManager(h.nc);
  await waitUntil(
    async () => {
      const info = await jsm.consumers.info(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    timeoutMs,
    'the consumer to have settled every message',
  );
}

/** Polls until check() is true. A check that throws counts as "not yet" (e.g. a bucket being created). */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The real events service on port 0 against the test run's NATS and MongoDB (or the URLs in
 * `env`), with its own database, stream, subjects, durable and registry bucket.
 */
export async function startEventsHarness(
  env: Record<string, string> = {},
  logger: Logger = createLogger({ service: 'events-test', level: 'warn', silent: process.env.TEST_LOGS !== '1' }),
): Promise<EventsHarness> {
  const config = loadEventsConfig({
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('events'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    CAMPAIGN_REGISTRY_BUCKET: uniqueName('campaigns'),
    VISITOR_SALT_BUCKET: uniqueName('salts'),
    EVENTS_STREAM: uniqueName('EVENTS'),
    EVENTS_SUBJECT_PREFIX: uniqueName('ev'),
    EVENTS_DEAD_LETTER_SUBJECT: uniqueName('evdlq'),
    CONSUMER_DURABLE: uniqueName('writer'),
    // JetStream reserves a stream's max_bytes against the server's store: keep test streams small
    EVENTS_STREAM_MAX_BYTES: String(256 * 1024 * 1024),
    EVENTS_DLQ_MAX_BYTES: String(64 * 1024 * 1024),
    // every test sends from 127.0.0.1 as fast as it can: flood limits are off unless a test turns them on
    PIXEL_RATE_PER_IP: '0',
    PIXEL_RATE_PER_OWNER: '0',
    CONSUMER_MAX_WAIT_MS: '50',
    CONSUMER_ACK_WAIT_MS: '5000',
    CONSUMER_RETRY_BASE_MS: '200',
    CONSUMER_RETRY_MAX_MS: '1000',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SHUTDOWN_TIMEOUT_MS: '3000',
    ...env,
  });
  let system = await startEvents(config, logger, 0);
  let running = true;
  const stopSystem = async () => {
    if (!running) return;
    running = false;
    await system.stop();
  };
  let baseUrl = `http://127.0.0.1:${system.port}`;
  const mongo = await MongoClient.connect(config.MONGO_URL, { serverSelectionTimeoutMS: 5000 });
  const db = mongo.db(config.MONGO_DB);
  const nc = await connect({ servers: config.NATS_URL, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const js = jetstream(nc);
  const kv = await new Kvm(nc).open(config.OWNER_REGISTRY_BUCKET);

  const storedEvents: EventsHarness['storedEvents'] = async (filter = {}) => {
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const buckets = names.filter((n) => bucketDay(config.BUCKET_PREFIX, n)).sort();
    const docs: EventDocument[] = [];
    for (const b of buckets)
      docs.push(
        ...(await db
          .collection<EventDocument>(b)
          .find(filter as never)
          .toArray()),
      );
    return docs;
  };

  const harness: EventsHarness = {
    get baseUrl() {
      return baseUrl;
    },
    config,
    get system() {
      return system;
    },
    db,
    nc,
    js,
    pixel(params, init = {}) {
      const query = typeof params === 'string' ? params : new URLSearchParams(params).toString();
      return fetch(`${baseUrl}/v1/v.gif${query ? `?${query}` : ''}`, { redirect: 'manual', ...init });
    },
    async registerOwner(ownerId = newOwnerId(), redirectHosts: string[] = []) {
      const revision = Date.now();
      await kv.put(
        ownerId,
        encodeOwnerRecord({
          owner_id: ownerId,
          account_id: ownerId,
          created_at: new Date().toISOString(),
          revision,
          redirect_hosts: redirectHosts,
        }),
      );
      const known = () => system.owners?.redirectHosts(ownerId)?.join() === redirectHosts.join();
      await waitUntil(() => (system.owners ? known() : true), SIGNAL_WAIT_MS, `owner ${ownerId} in the registry`);
      return ownerId;
    },
    async removeOwner(ownerId) {
      await kv.purge(ownerId);
      await waitUntil(
        () => !(system.owners?.has(ownerId) ?? false),
        SIGNAL_WAIT_MS,
        `owner ${ownerId} gone from the registry`,
      );
    },
    async publishCampaign(record) {
      // the reporting role created the bucket at start
      await writeCampaignRecord(await new Kvm(nc).open(config.CAMPAIGN_REGISTRY_BUCKET), record);
      await waitUntil(
        () => system.campaigns?.campaign(record.owner_id, record.token)?.revision === record.revision,
        20_000,
        `campaign ${record.token} in the reporting role`,
      );
    },
    async publishEvent(partial, msgID) {
      const msg: EventMessage = { v: 1, ...newEvent(), ...partial };
      await js.publish(`${config.EVENTS_SUBJECT_PREFIX}.${msg.owner_id}`, JSON.stringify(msg), {
        msgID: msgID ?? msg.id,
      });
      return msg;
    },
    async publishBatch(items, msgID = `batch-${v7()}`) {
      const events = items.map((item) => ('raw' in item ? item.raw : { ...newEvent(), ...item }));
      await js.publish(
        eventBatchSubject(config.EVENTS_SUBJECT_PREFIX),
        encodeEventBatch(
          msgID,
          events.map((e) => JSON.stringify(e)),
        ),
        { msgID },
      );
      return events;
    },
    storedEvents,
    async waitForStored(count, filter = {}, timeoutMs = SIGNAL_WAIT_MS) {
      let docs: EventDocument[] = [];
      await waitUntil(
        async () => (docs = await storedEvents(filter)).length >= count,
        timeoutMs,
        `${count} stored events`,
      );
      return docs;
    },
    async storedAfterMarker(ownerId, filter) {
      const content_id = uniqueTag('marker');
      const res = await harness.pixel(
        { owner_id: ownerId, name: 'marker', content_id },
        { headers: { 'user-agent': BROWSER_UA } },
      );
      if (res.status !== 200) throw new Error(`the marker hit was answered ${res.status}`);
      await harness.waitForStored(1, { content_id });
      return storedEvents(filter);
    },
    async restart() {
      await stopSystem();
      system = await startEvents(config, logger, 0);
      running = true;
      baseUrl = `http://127.0.0.1:${system.port}`;
    },
    stopSystem,
    async stop() {
      await stopSystem().catch(() => undefined);
      try {
        const jsm = await jetstreamManager(nc);
        for (const s of [
          config.EVENTS_STREAM,
          `${config.EVENTS_STREAM}_DLQ`,
          `KV_${config.OWNER_REGISTRY_BUCKET}`,
          `KV_${config.CAMPAIGN_REGISTRY_BUCKET}`,
          `KV_${config.VISITOR_SALT_BUCKET}`,
        ])
          await jsm.streams.delete(s).catch(() => undefined);
        await db.dropDatabase().catch(() => undefined);
      } finally {
        await nc.close();
        await mongo.close();
      }
    },
  };
  return harness;
}
