import { jetstreamManager } from '@nats-io/jetstream';
import { bucketName } from '../storage/bucket-naming';
import { toEventDocument } from '../storage/event-document';
import type { EventRecord } from '@cm/contracts';
import {
  consumerSettled,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';
import { DLQ_HEADERS } from './dead-letters';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness({ CONSUMER_ACK_WAIT_MS: '1000' });
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
});

async function countsOf(contentIds: string[]): Promise<number[]> {
  const docs = await h.storedEvents({ content_id: { $in: contentIds } });
  return contentIds.map((id) => docs.filter((d) => d.content_id === id).length);
}

describe('consumer with batch messages (contract v2)', () => {
  test('when the stream holds v1 single events and v2 batches (a rolling upgrade), then every event is stored once', async () => {
    const ids = Array.from({ length: 7 }, () => uniqueTag('mix'));
    await h.publishEvent({ owner_id: owner, content_id: ids[0] });
    await h.publishBatch(ids.slice(1, 4).map((content_id) => ({ owner_id: owner, content_id })));
    await h.publishEvent({ owner_id: owner, content_id: ids[4] });
    await h.publishBatch(ids.slice(5).map((content_id) => ({ owner_id: owner, content_id })));
    await h.waitForStored(ids.length, { content_id: { $in: ids } });
    await consumerSettled(h);
    expect(await countsOf(ids)).toEqual(ids.map(() => 1));
  });

  test('when a batch holds events with a visitor and one published before visitors existed, then the visitor is stored as a number field and the old event without it', async () => {
    const [withVisitor, without] = [uniqueTag('vis'), uniqueTag('novis')];
    const visitor = 2 ** 52 - 3;
    await h.publishBatch([
      { owner_id: owner, content_id: withVisitor, visitor },
      { owner_id: owner, content_id: without },
    ]);
    const docs = await h.waitForStored(2, { content_id: { $in: [withVisitor, without] } });
    expect(docs.find((d) => d.content_id === withVisitor)!.visitor).toBe(visitor);
    expect(docs.find((d) => d.content_id === without)).not.toHaveProperty('visitor');
    expect(await h.storedEvents({ content_id: withVisitor, visitor: { $type: 'number' } } as never)).toHaveLength(1);
  });

  test('when one event of a batch is invalid, then it alone goes to the dead-letter stream and its batch-mates are written', async () => {
    const good = [uniqueTag('good'), uniqueTag('good')];
    const jsm = await jetstreamManager(h.nc);
    const dlq = `${h.config.EVENTS_STREAM}_DLQ`;
    const lettersBefore = (await jsm.streams.info(dlq)).state.messages;
    const bad = { owner_id: owner, name: 'x', device_type: 'tv', content_id: uniqueTag('bad') };
    await h.publishBatch([
      { owner_id: owner, content_id: good[0] },
      { raw: bad },
      { owner_id: owner, content_id: good[1] },
    ]);
    const batchSeq = (await jsm.streams.info(h.config.EVENTS_STREAM)).state.last_seq;
    await h.waitForStored(2, { content_id: { $in: good } });
    await consumerSettled(h);
    await waitUntil(
      async () => (await jsm.streams.info(dlq)).state.messages === lettersBefore + 1,
      5000,
      'one dead letter',
    );
    const letter = await jsm.streams.getMessage(dlq, { seq: (await jsm.streams.info(dlq)).state.last_seq });
    expect(letter?.json()).toEqual(bad);
    expect(letter?.header?.get(DLQ_HEADERS.batchIndex)).toBe('1');
    expect(letter?.header?.get(DLQ_HEADERS.reason)).toMatch(/^invalid event: /);
    // acked, not redelivered: the ack floor has passed the batch, so JetStream cannot redeliver it and add a second letter
    const info = await jsm.consumers.info(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
    expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(batchSeq);
    expect((await jsm.streams.info(dlq)).state.messages).toBe(lettersBefore + 1);
    expect(await countsOf(good)).toEqual([1, 1]);
  });

  test('when a batch was half written by an instance that died before acking, then its redelivery stores every event exactly once', async () => {
    const ids = Array.from({ length: 6 }, () => uniqueTag('half'));
    await h.stopSystem();
    const sent = (await h.publishBatch(ids.map((content_id) => ({ owner_id: owner, content_id })))) as EventRecord[];
    // play the instance that died: take the message from the shared durable, write half of it, never ack
    const consumer = await h.js.consumers.get(h.config.EVENTS_STREAM, h.config.CONSUMER_DURABLE);
    const taken = await consumer.next({ expires: 2000 });
    expect(taken).not.toBeNull();
    const half = sent.slice(0, 3).map(toEventDocument);
    await h.db.collection(bucketName(h.config.BUCKET_PREFIX, half[0]!.created)).insertMany(half as never[]);

    await h.restart();
    await h.waitForStored(ids.length, { content_id: { $in: ids } }, 10_000);
    await consumerSettled(h);
    expect(await countsOf(ids)).toEqual(ids.map(() => 1));
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/events_consumer_events_total\{outcome="duplicate"[^}]*\} 3/);
    expect(metrics).toMatch(/events_consumer_redeliveries_total\S* [1-9]/);
  });
});
