import { jetstreamManager } from '@nats-io/jetstream';
import { v7 } from 'uuid';
import { DLQ_HEADERS } from './dead-letters';
import { bucketName } from '../storage/bucket-naming';
import { toEventDocument } from '../storage/event-document';
import {
  consumerSettled,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
  uniqueTag,
} from '../../test/support/events-harness';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness();
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
});

const tag = () => uniqueTag('k');

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('consumer', () => {
  test('when the same event is published twice with the same msgID, then it is stored once', async () => {
    const content_id = tag();
    const msg = await h.publishEvent({ owner_id: owner, content_id });
    await h.publishEvent({ ...msg });
    await h.waitForStored(1, { content_id });
    await consumerSettled(h, 5000);
    expect(await h.storedEvents({ content_id })).toHaveLength(1);
  });

  test('when an already written event arrives again (a redelivery after the write), then it is acked as a duplicate and stored once', async () => {
    const content_id = tag();
    const before = await metric('events_consumer_events_total{outcome="duplicate"');
    const msg = await h.publishEvent({ owner_id: owner, content_id });
    await h.waitForStored(1, { content_id });
    // outside the stream's dedupe (another msgID), exactly what a redelivery looks like to MongoDB
    await h.publishEvent({ ...msg }, `replay-${msg.id}`);
    await consumerSettled(h, 5000);
    expect(await h.storedEvents({ content_id })).toHaveLength(1);
    expect(await metric('events_consumer_events_total{outcome="duplicate"')).toBe(before + 1);
  });

  test('when the write happened but the ack was lost (document already there), then the delivery is acked and not doubled', async () => {
    const content_id = tag();
    const id = v7();
    const created = new Date().toISOString();
    const doc = toEventDocument({
      id,
      owner_id: owner,
      name: 'impression',
      url: '',
      content_id,
      device_type: 'desktop',
      bot: false,
      metadata: {},
      created,
    });
    await h.db.collection(bucketName(h.config.BUCKET_PREFIX, doc.created)).insertOne(doc as never);
    await h.publishEvent({ id, owner_id: owner, content_id, created });
    await consumerSettled(h, 5000);
    expect(await h.storedEvents({ content_id })).toHaveLength(1);
  });

  test('when a message cannot be decoded, then it goes to the dead-letter stream once, is not retried, and its batch neighbours are written', async () => {
    const content_id = tag();
    const subject = `${h.config.EVENTS_SUBJECT_PREFIX}.${owner}`;
    const bad = await h.js.publish(subject, '{"v":1,"id":"not-a-uuid"}', { msgID: `bad-${content_id}` });
    await h.js.publish(subject, 'not json at all', { msgID: `bad2-${content_id}` });
    await h.publishEvent({ owner_id: owner, content_id });
    await h.waitForStored(1, { content_id });
    await consumerSettled(h, 5000);

    const jsm = await jetstreamManager(h.nc);
    const dlq = `${h.config.EVENTS_STREAM}_DLQ`;
    await waitUntil(async () => (await jsm.streams.info(dlq)).state.messages >= 2, 5000, 'two dead letters');
    const first = await jsm.streams.getMessage(dlq, { seq: 1 });
    expect(first?.string()).toBe('{"v":1,"id":"not-a-uuid"}');
    expect(first?.header?.get(DLQ_HEADERS.reason)).toMatch(/^undecodable: /);
    expect(first?.header?.get(DLQ_HEADERS.sequence)).toBe(String(bad.seq));
    expect(first?.header?.get(DLQ_HEADERS.subject)).toBe(subject);
    // terminated, not naked: the ack floor has passed both, so JetStream redelivers neither and no copy can be added later
    const info = await jsm.consumers.info(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
    expect(info.num_ack_pending).toBe(0);
    expect(info.ack_floor.stream_seq).toBeGreaterThan(bad.seq);
    expect((await jsm.streams.info(dlq)).state.messages).toBe(2);
  });

  test('when events of several days arrive, then each lands in its UTC day bucket, which gets the report indexes', async () => {
    const content_id = tag();
    const days = ['2026-11-01T23:59:59.999Z', '2026-11-02T00:00:00.000Z', '2026-11-02T12:00:00.000Z'];
    const now = Date.now();
    // chosen relative to today so that retention keeps them whatever day the test runs
    const created = days.map((d, i) =>
      new Date(now - (3 - i) * 3_600_000 * 24 + (Date.parse(d) % 86_400_000) - (now % 86_400_000)).toISOString(),
    );
    for (const c of created) await h.publishEvent({ owner_id: owner, content_id, created: c });
    const docs = await h.waitForStored(3, { content_id });
    for (const c of created) {
      const bucket = bucketName(h.config.BUCKET_PREFIX, new Date(c));
      const inBucket = await h.db.collection(bucket).find({ content_id }).toArray();
      expect(inBucket.map((d) => (d.created as Date).toISOString())).toContain(c);
      const indexes = (await h.db.collection(bucket).indexes()).map((i) => i.name);
      expect(indexes).toEqual(
        expect.arrayContaining(['owner_name_created', 'owner_content_created', 'owner_url_created']),
      );
    }
    expect(docs).toHaveLength(3);
  });

  test('when an event is older than the retention period, then it is acked and not written (its bucket is not resurrected)', async () => {
    const content_id = tag();
    const old = new Date(Date.now() - (h.config.RETENTION_DAYS + 2) * 86_400_000);
    await h.publishEvent({ owner_id: owner, content_id, created: old.toISOString() });
    await consumerSettled(h, 5000);
    const names = (await h.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).not.toContain(bucketName(h.config.BUCKET_PREFIX, old));
  });

  test('when the consumer has worked, then /metrics reports batch sizes, outcomes and the pending count', async () => {
    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    for (const name of [
      'events_consumer_batch_size_bucket',
      'events_consumer_events_total{outcome="written"',
      'events_consumer_events_total{outcome="dead_lettered"',
      'events_consumer_pending',
      'events_consumer_redeliveries_total',
    ]) {
      expect(text).toContain(name);
    }
  });
});
