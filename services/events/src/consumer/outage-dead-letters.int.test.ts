import { jetstreamManager } from '@nats-io/jetstream';
import { MongoNetworkError } from 'mongodb';
import { createLogger, createRegistry } from '@cm/platform';
import type { EventDocument } from '../storage/event-document';
import {
  consumerSettled,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';
import { withInsertHook } from '../../test/support/insert-hook';
import { createBatchHandler } from './batch-handler';
import { BucketWriter } from './bucket-writer';
import { createConsumerMetrics } from './consumer-metrics';
import { DeadLetters } from './dead-letters';
import { EventConsumer } from './event-consumer';

const REFUSED = 'refused-by-validator';
const silent = createLogger({ service: 'outage-test', level: 'error', silent: true });

let h: EventsHarness;
let state: 'down' | 'coming back' | 'up' = 'up';
let failedInserts = 0;
let consumer: EventConsumer;

/** The database as the consumer sees it: refused connections while down; once back, one write whose documents a stepping-up node interrupts. */
const db = () =>
  withInsertHook(h.db, async (docs, insert) => {
    if (state === 'down') {
      failedInserts++;
      throw new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017');
    }
    if (state === 'coming back') {
      state = 'up';
      throw Object.assign(new Error('interrupted'), {
        writeErrors: docs.map((_d, index) => ({
          index,
          code: 11602,
          errmsg: 'operation was interrupted because of a replica set state change',
        })),
      });
    }
    // a validator refuses this one document every time: a permanent rejection
    const refused = docs.flatMap((d, i) => (d.content_id === REFUSED ? [i] : []));
    if (refused.length === 0) return insert();
    const rest = docs.filter((d) => d.content_id !== REFUSED);
    if (rest.length > 0) await insert(rest).catch(() => undefined);
    throw Object.assign(new Error('Document failed validation'), {
      writeErrors: refused.map((index) => ({ index, code: 121, errmsg: 'Document failed validation' })),
    });
  });

beforeAll(async () => {
  h = await startEventsHarness({
    CONSUMER_MAX_WRITE_ATTEMPTS: '3',
    CONSUMER_RETRY_BASE_MS: '10',
    CONSUMER_RETRY_MAX_MS: '50',
  });
  // the service's own consumer makes way for one writing through the hooked database
  await h.stopSystem();
  const { config } = h;
  const writer = new BucketWriter(db(), silent, {
    w: config.EVENTS_WRITE_CONCERN_W,
    journal: config.EVENTS_WRITE_CONCERN_J,
  });
  const handler = createBatchHandler({
    writer,
    deadLetters: new DeadLetters(h.nc, config.EVENTS_DEAD_LETTER_SUBJECT, config.PUBLISH_TIMEOUT_MS),
    config,
  });
  consumer = new EventConsumer({
    js: h.js,
    handler,
    metrics: createConsumerMetrics(createRegistry('outage_test')),
    logger: silent,
    config,
  });
  consumer.start();
});
afterAll(async () => {
  await consumer.stop();
  await h.stop();
});

async function deadLetters(): Promise<number> {
  return (await (await jetstreamManager(h.nc)).streams.info(`${h.config.EVENTS_STREAM}_DLQ`)).state.messages;
}

async function countsOf(contentIds: string[]): Promise<number[]> {
  const docs: EventDocument[] = await h.storedEvents({ content_id: { $in: contentIds } });
  return contentIds.map((id) => docs.filter((d) => d.content_id === id).length);
}

describe('dead letters around a database outage', () => {
  test('when a message fails many more deliveries than the write attempts because the database is down, and its events are interrupted once as it comes back, then nothing is dead-lettered and every event is stored once', async () => {
    const owner = '4242';
    const ids = Array.from({ length: 4 }, () => uniqueTag('outage'));
    const before = await deadLetters();
    state = 'down';
    await h.publishBatch(ids.slice(0, 2).map((content_id) => ({ owner_id: owner, content_id })));
    await h.publishEvent({ owner_id: owner, content_id: ids[2]! });
    await h.publishBatch([{ owner_id: owner, content_id: ids[3]! }]);
    // three attempts allowed: let every message fail several times that
    await waitUntil(() => failedInserts >= 12, 20_000, 'deliveries failing during the outage');
    state = 'coming back';
    await waitUntil(() => state === 'up', 20_000, 'the first write after the outage');
    await consumerSettled(h, 20_000);
    expect(await countsOf(ids)).toEqual([1, 1, 1, 1]);
    expect(await deadLetters()).toBe(before);
  }, 60_000);

  test('when the database refuses one event every time, then it alone is dead-lettered after the write attempts and its batch-mate is stored once', async () => {
    const owner = '4242';
    const good = uniqueTag('good');
    const before = await deadLetters();
    await h.publishBatch([
      { owner_id: owner, content_id: good },
      { owner_id: owner, content_id: REFUSED },
    ]);
    await waitUntil(
      async () => (await deadLetters()) === before + 1,
      20_000,
      'the refused event in the dead-letter stream',
    );
    await consumerSettled(h);
    expect(await countsOf([good, REFUSED])).toEqual([1, 0]);
    expect(await deadLetters()).toBe(before + 1);
  }, 60_000);
});
