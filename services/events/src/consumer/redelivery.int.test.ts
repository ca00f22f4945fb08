import { jetstreamManager } from '@nats-io/jetstream';
import { bucketName } from '../storage/bucket-naming';
import { toEventDocument } from '../storage/event-document';
import { startEventsHarness, waitUntil, type EventsHarness } from '../../test/support/events-harness';

let h: EventsHarness;

beforeAll(async () => {
  h = await startEventsHarness({ CONSUMER_ACK_WAIT_MS: '1000' });
});
afterAll(async () => {
  await h.stop();
});

describe('redelivery', () => {
  test('when a consumer wrote an event but died before acking, then JetStream redelivers it and it is acked as a duplicate, stored once', async () => {
    const owner = await h.registerOwner();
    await h.stopSystem();
    const msg = await h.publishEvent({ owner_id: owner, content_id: 'redelivered' });

    // play the instance that died: take the message from the shared durable, write it, never ack
    const consumer = await h.js.consumers.get(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
    const taken = await consumer.next({ expires: 2000 });
    expect(taken?.json<{ id: string }>().id).toBe(msg.id);
    const doc = toEventDocument(msg);
    await h.db.collection(bucketName(h.config.BUCKET_PREFIX, doc.created)).insertOne(doc as never);

    await h.restart();
    const jsm = await jetstreamManager(h.nc);
    await waitUntil(
      async () => {
        const info = await jsm.consumers.info(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
        // delivered twice (to the dead instance, then to the service) and acknowledged
        return info.delivered.consumer_seq === 2 && info.ack_floor.consumer_seq === 2 && info.num_ack_pending === 0;
      },
      10_000,
      'the redelivery to be acknowledged',
    );
    expect(await h.storedEvents({ content_id: 'redelivered' })).toHaveLength(1);
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/events_consumer_redeliveries_total\S* [1-9]/);
    expect(metrics).toMatch(/events_consumer_events_total\{outcome="duplicate"[^}]*\} 1/);
  });
});
