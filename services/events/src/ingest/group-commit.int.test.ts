import { jetstreamManager } from '@nats-io/jetstream';
import { decodeEventPayload, eventBatchSubject } from '@cm/contracts';
import { PausableProxy } from '../../test/support/pausable-proxy';
import {
  BROWSER_UA,
  consumerSettled,
  startEventsHarness,
  uniqueTag,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';

// The service reaches NATS through a proxy that can hold replies back or cut the connection.
let proxy: PausableProxy;
let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  const nats = new URL(process.env.NATS_URL!.split(',')[0]!);
  proxy = await PausableProxy.start({ host: nats.hostname, port: Number(nats.port) });
  h = await startEventsHarness({
    NATS_URL: proxy.url,
    PUBLISH_TIMEOUT_MS: '2500',
    PUBLISH_ATTEMPT_TIMEOUT_MS: '200',
    INGEST_PUBLISH_WINDOW: '1',
  });
  owner = await h.registerOwner();
});
afterAll(async () => {
  proxy.releaseReplies();
  await proxy.restore();
  await h.stop();
  await proxy.stop();
});
afterEach(async () => {
  proxy.releaseReplies();
  await proxy.restore();
});

const hit = (content_id: string) =>
  h
    .pixel({ owner_id: owner, name: 'impression', content_id }, { headers: { 'user-agent': BROWSER_UA } })
    .then((r) => r.status);
const streamMessages = async () =>
  (await (await jetstreamManager(h.nc)).streams.info(h.config.EVENTS_STREAM)).state.messages;
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
/** Each content_id is stored exactly once (or, with `atMostOnce`, never twice). */
async function expectStoredOnce(ids: string[], atMostOnce = false): Promise<void> {
  const docs = await h.storedEvents({ owner_id: owner });
  const counts = new Map<string, number>();
  for (const d of docs) counts.set(d.content_id, (counts.get(d.content_id) ?? 0) + 1);
  for (const id of ids) {
    if (atMostOnce) expect(counts.get(id) ?? 0).toBeLessThanOrEqual(1);
    else expect([id, counts.get(id)]).toEqual([id, 1]);
  }
}

describe('group commit on the pixel path', () => {
  test('when one hit reaches an idle service, then it is published at once as a message of its own', async () => {
    const content_id = uniqueTag('lone');
    const before = await streamMessages();
    const started = Date.now();
    expect(await hit(content_id)).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await streamMessages()).toBe(before + 1);
    const last = await (
      await jetstreamManager(h.nc)
    ).streams.getMessage(h.config.EVENTS_STREAM, { last_by_subj: eventBatchSubject(h.config.EVENTS_SUBJECT_PREFIX) });
    const payload = decodeEventPayload(last!.data);
    expect(payload.ok && payload.events.map((e) => e.ok && e.value.content_id)).toEqual([content_id]);
  });

  test('when a burst of hits arrives together, then they share a few messages and every one is acknowledged and stored once', async () => {
    const ids = Array.from({ length: 200 }, () => uniqueTag('burst'));
    const before = await streamMessages();
    const statuses = await Promise.all(ids.map(hit));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const messages = (await streamMessages()) - before;
    expect(messages).toBeLessThan(100);
    await h.waitForStored(ids.length, { content_id: { $in: ids } });
    await expectStoredOnce(ids);
    expect(await metric('events_ingest_batch_events_count')).toBeGreaterThan(0);
  });

  test('when the stream stored a message but its ack is late, then the message is sent again under the same id, stored once, and the hits get 200', async () => {
    const ids = Array.from({ length: 5 }, () => uniqueTag('late'));
    const retriesBefore = await metric('events_ingest_publish_retries_total');
    const before = await streamMessages();
    proxy.holdReplies();
    const statuses = Promise.all(ids.map(hit));
    // past the 200 ms attempt timeout, more than once: the same message has gone out again twice
    await waitUntil(
      async () => (await metric('events_ingest_publish_retries_total')) >= retriesBefore + 2,
      10_000,
      'two publish retries',
    );
    proxy.releaseReplies();
    expect(await statuses).toEqual(ids.map(() => 200));
    expect(await metric('events_ingest_publish_retries_total')).toBeGreaterThan(retriesBefore);
    const messages = (await streamMessages()) - before;
    expect(messages).toBeGreaterThanOrEqual(1);
    expect(messages).toBeLessThanOrEqual(2);
    await h.waitForStored(ids.length, { content_id: { $in: ids } });
    // every message acknowledged by the consumer: a second copy would be stored by now
    await consumerSettled(h);
    await expectStoredOnce(ids);
  });

  test('when the broker is gone while a batch waits for its ack, then exactly that batch is answered 503 and nothing is stored twice', async () => {
    const acknowledged = Array.from({ length: 5 }, () => uniqueTag('ok'));
    expect(await Promise.all(acknowledged.map(hit))).toEqual(acknowledged.map(() => 200));
    const inFlight = Array.from({ length: 5 }, () => uniqueTag('cut'));
    const retriesBefore = await metric('events_ingest_publish_retries_total');
    proxy.holdReplies();
    const statuses = Promise.all(inFlight.map(hit));
    // the batch went out and its ack is held back (the stream, behind the same proxy, cannot be asked)
    await waitUntil(
      async () => (await metric('events_ingest_publish_retries_total')) > retriesBefore,
      5000,
      'the batch to wait for its ack',
    );
    await proxy.cut();
    // past the 2.5 s publish timeout: the broker did not come back in time
    expect(await statuses).toEqual(inFlight.map(() => 503));
    await proxy.restore();
    await waitUntil(async () => (await hit(uniqueTag('probe'))) === 200, 15_000, 'the pixel to recover');
    const after = Array.from({ length: 5 }, () => uniqueTag('after'));
    expect(await Promise.all(after.map(hit))).toEqual(after.map(() => 200));
    // the acknowledged batch may come back from the stream only after ack_wait (its ack was cut off too)
    await h.waitForStored(
      acknowledged.length + after.length,
      { content_id: { $in: [...acknowledged, ...after] } },
      15_000,
    );
    // every message acknowledged by the consumer (redeliveries included): a second copy would be stored by now
    await consumerSettled(h, 15_000);
    await expectStoredOnce([...acknowledged, ...after]);
    // the 503'd hits may have reached the stream before the cut (a 503 promises nothing): never twice
    await expectStoredOnce(inFlight, true);
  }, 30_000);

  test('when the service is stopped with a batch waiting for its ack, then the hits are answered once the ack comes, then it stops', async () => {
    const ids = Array.from({ length: 5 }, () => uniqueTag('stop'));
    const retriesBefore = await metric('events_ingest_publish_retries_total');
    proxy.holdReplies();
    const statuses = Promise.all(ids.map(hit));
    // the batch went out and its ack is held back (the stream, behind the same proxy, cannot be asked)
    await waitUntil(
      async () => (await metric('events_ingest_publish_retries_total')) > retriesBefore,
      5000,
      'the batch to wait for its ack',
    );
    let stopped = false;
    const stopping = h.stopSystem().then(() => (stopped = true));
    // the scenario: a while later the stop is still waiting for the held ack
    await new Promise((r) => setTimeout(r, 300));
    expect(stopped).toBe(false);
    proxy.releaseReplies();
    expect(await statuses).toEqual(ids.map(() => 200));
    await stopping;
    await h.restart();
    await h.waitForStored(ids.length, { content_id: { $in: ids } }, 10_000);
    await expectStoredOnce(ids);
  }, 30_000);
});
