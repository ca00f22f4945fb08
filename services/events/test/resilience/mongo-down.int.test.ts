import { startMongoStandIn, type LocalServer } from '@cm/testkit';
import { consumerSettled, startEventsHarness, waitUntil, type EventsHarness } from '../support/events-harness';

// this file runs its own MongoDB stand-in so that it can kill and restart it
let mongo: LocalServer;
let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  mongo = await startMongoStandIn();
  h = await startEventsHarness({ MONGO_URL: mongo.url, CONSUMER_RETRY_BASE_MS: '200', CONSUMER_RETRY_MAX_MS: '1000' });
  owner = await h.registerOwner();
}, 90_000);
afterAll(async () => {
  await h.stop();
  await mongo.stop();
});

describe('when MongoDB is down for a while', () => {
  test('then the pixel keeps acknowledging, and every acknowledged event is written once MongoDB is back', async () => {
    expect((await h.pixel({ owner_id: owner, name: 'impression', content_id: 'warmup' })).status).toBe(200);
    await h.waitForStored(1, { content_id: 'warmup' });

    await mongo.stop();
    const acknowledged: string[] = [];
    for (let i = 0; i < 30; i++) {
      const content_id = `down-${i}`;
      const res = await h.pixel({ owner_id: owner, name: 'impression', content_id });
      expect(res.status).toBe(200);
      acknowledged.push(content_id);
    }
    // the consumer has failed a few times (nak with delay) before the database returns
    const retries = async () =>
      Number(
        /events_consumer_events_total\{outcome="retry"[^}]*\} (\d+)/.exec(
          await (await fetch(`${h.baseUrl}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    await waitUntil(async () => (await retries()) >= 2, 20_000, 'the consumer to retry while MongoDB is down');
    mongo = await startMongoStandIn({ port: mongo.port });

    // the stand-in starts empty; what matters is that everything sent during the outage arrives, once
    let stored: string[] = [];
    await waitUntil(
      async () => {
        stored = (await h.storedEvents({ content_id: { $regex: '^down-' } })).map((d) => d.content_id);
        return stored.length >= acknowledged.length;
      },
      30_000,
      'the events sent during the outage',
    );
    // every message acknowledged: a duplicate write would be stored by now
    await consumerSettled(h, 30_000);
    stored = (await h.storedEvents({ content_id: { $regex: '^down-' } })).map((d) => d.content_id);
    expect(stored.sort()).toEqual([...acknowledged].sort());
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/events_consumer_events_total\{outcome="retry"[^}]*\} [1-9]/);
  }, 90_000);
});
