import net from 'node:net';
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
// "Late" is a held ack, not a slow one: the publish deadline and the shutdown bound are far above
// anything a test waits, so a busy machine cannot turn a 200 into a 503.
let proxy: PausableProxy;
let h: EventsHarness;
let owner: string;
/** How long a test waits for a signal (a retry, a stored event): a bound on waiting, not on speed. */
const WAIT_MS = 30_000;

async function proxiedHarness(env: Record<string, string>): Promise<{ proxy: PausableProxy; h: EventsHarness }> {
  const nats = new URL(process.env.NATS_URL!.split(',')[0]!);
  const proxy = await PausableProxy.start({ host: nats.hostname, port: Number(nats.port) });
  const h = await startEventsHarness({
    NATS_URL: proxy.url,
    PUBLISH_ATTEMPT_TIMEOUT_MS: '200',
    INGEST_PUBLISH_WINDOW: '1',
    ...env,
  });
  return { proxy, h };
}

beforeAll(async () => {
  ({ proxy, h } = await proxiedHarness({
    // the longest allowed: a held ack is released long before it
    PUBLISH_TIMEOUT_MS: '30000',
    // a stop waits for the held ack instead of cutting the hits' connections
    SHUTDOWN_TIMEOUT_MS: '60000',
  }));
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

/** Whether the service still takes new connections (a stopping server closes its listener first). */
function listening(baseUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const hitOn = (on: EventsHarness, ownerId: string, content_id: string) =>
  on
    .pixel({ owner_id: ownerId, name: 'impression', content_id }, { headers: { 'user-agent': BROWSER_UA } })
    .then((r) => r.status);
const hit = (content_id: string) => hitOn(h, owner, content_id);
const streamMessages = async () =>
  (await (await jetstreamManager(h.nc)).streams.info(h.config.EVENTS_STREAM)).state.messages;
async function metric(name: string, on = h): Promise<number> {
  const text = await (await fetch(`${on.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
/** Each content_id is stored exactly once (or, with `atMostOnce`, never twice). */
async function expectStoredOnce(ids: string[], atMostOnce = false, on = h, ownerId = owner): Promise<void> {
  const docs = await on.storedEvents({ owner_id: ownerId });
  const counts = new Map<string, number>();
  for (const d of docs) counts.set(d.content_id, (counts.get(d.content_id) ?? 0) + 1);
  for (const id of ids) {
    if (atMostOnce) expect(counts.get(id) ?? 0).toBeLessThanOrEqual(1);
    else expect([id, counts.get(id)]).toEqual([id, 1]);
  }
}

describe('group commit on the pixel path', () => {
  // "at once" (within the event-loop turn it arrived in, no waiting for company) is the publisher's
  // unit test (group-commit-publisher.test.ts); here: the real message holds the lone hit only
  test('when one hit reaches an idle service, then it is published as a message of its own', async () => {
    const content_id = uniqueTag('lone');
    const before = await streamMessages();
    expect(await hit(content_id)).toBe(200);
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
    await h.waitForStored(ids.length, { content_id: { $in: ids } }, WAIT_MS);
    await expectStoredOnce(ids);
    expect(await metric('events_ingest_batch_events_count')).toBeGreaterThan(0);
  }, 60_000);

  test('when the stream stored a message but its ack is late, then the message is sent again under the same id, stored once, and the hits get 200', async () => {
    const ids = Array.from({ length: 5 }, () => uniqueTag('late'));
    const retriesBefore = await metric('events_ingest_publish_retries_total');
    const before = await streamMessages();
    proxy.holdReplies();
    const statuses = Promise.all(ids.map(hit));
    // past the 200 ms attempt timeout, more than once: the same message has gone out again twice
    await waitUntil(
      async () => (await metric('events_ingest_publish_retries_total')) >= retriesBefore + 2,
      WAIT_MS,
      'two publish retries',
    );
    proxy.releaseReplies();
    expect(await statuses).toEqual(ids.map(() => 200));
    expect(await metric('events_ingest_publish_retries_total')).toBeGreaterThan(retriesBefore);
    const messages = (await streamMessages()) - before;
    expect(messages).toBeGreaterThanOrEqual(1);
    expect(messages).toBeLessThanOrEqual(2);
    await h.waitForStored(ids.length, { content_id: { $in: ids } }, WAIT_MS);
    // every message acknowledged by the consumer: a second copy would be stored by now
    await consumerSettled(h, WAIT_MS);
    await expectStoredOnce(ids);
  }, 90_000);

  test('when the service is stopped with a batch waiting for its ack, then the hits are answered once the ack comes, then it stops', async () => {
    const ids = Array.from({ length: 5 }, () => uniqueTag('stop'));
    const retriesBefore = await metric('events_ingest_publish_retries_total');
    proxy.holdReplies();
    const statuses = Promise.all(ids.map(hit));
    // the batch went out and its ack is held back (the stream, behind the same proxy, cannot be asked)
    await waitUntil(
      async () => (await metric('events_ingest_publish_retries_total')) > retriesBefore,
      WAIT_MS,
      'the batch to wait for its ack',
    );
    let stopped = false;
    const baseUrl = h.baseUrl;
    const stopping = h.stopSystem().then(() => (stopped = true));
    // the stop is under way (its listener is closed) and still waits for the hits, whose ack is held
    await waitUntil(async () => !(await listening(baseUrl)), WAIT_MS, 'the stop to close the listener');
    expect(stopped).toBe(false);
    proxy.releaseReplies();
    expect(await statuses).toEqual(ids.map(() => 200));
    await stopping;
    await h.restart();
    await h.waitForStored(ids.length, { content_id: { $in: ids } }, WAIT_MS);
    await expectStoredOnce(ids);
  }, 90_000);
});

describe('group commit when the broker goes away', () => {
  // a service of its own: here the publish deadline must pass (the broker stays cut until then),
  // so it is the default rather than the longest
  let cutProxy: PausableProxy;
  let cutH: EventsHarness;
  let cutOwner: string;
  beforeAll(async () => {
    ({ proxy: cutProxy, h: cutH } = await proxiedHarness({ PUBLISH_TIMEOUT_MS: '10000' }));
    cutOwner = await cutH.registerOwner();
  });
  afterAll(async () => {
    cutProxy.releaseReplies();
    await cutProxy.restore();
    await cutH.stop();
    await cutProxy.stop();
  });

  test('when the broker is gone while a batch waits for its ack, then exactly that batch is answered 503 and nothing is stored twice', async () => {
    const hit = (content_id: string) => hitOn(cutH, cutOwner, content_id);
    const cutMetric = (name: string) => metric(name, cutH);
    const acknowledged = Array.from({ length: 5 }, () => uniqueTag('ok'));
    expect(await Promise.all(acknowledged.map(hit))).toEqual(acknowledged.map(() => 200));
    const inFlight = Array.from({ length: 5 }, () => uniqueTag('cut'));
    const retriesBefore = await cutMetric('events_ingest_publish_retries_total');
    cutProxy.holdReplies();
    const statuses = Promise.all(inFlight.map(hit));
    // the batch went out and its ack is held back (the stream, behind the same proxy, cannot be asked)
    await waitUntil(
      async () => (await cutMetric('events_ingest_publish_retries_total')) > retriesBefore,
      WAIT_MS,
      'the batch to wait for its ack',
    );
    await cutProxy.cut();
    // past the publish timeout: the broker did not come back in time (it stays cut until then)
    expect(await statuses).toEqual(inFlight.map(() => 503));
    await cutProxy.restore();
    await waitUntil(async () => (await hit(uniqueTag('probe'))) === 200, WAIT_MS, 'the pixel to recover');
    const after = Array.from({ length: 5 }, () => uniqueTag('after'));
    expect(await Promise.all(after.map(hit))).toEqual(after.map(() => 200));
    // the acknowledged batch may come back from the stream only after ack_wait (its ack was cut off too)
    await cutH.waitForStored(
      acknowledged.length + after.length,
      { content_id: { $in: [...acknowledged, ...after] } },
      WAIT_MS,
    );
    // every message acknowledged by the consumer (redeliveries included): a second copy would be stored by now
    await consumerSettled(cutH, WAIT_MS);
    await expectStoredOnce([...acknowledged, ...after], false, cutH, cutOwner);
    // the 503'd hits may have reached the stream before the cut (a 503 promises nothing): never twice
    await expectStoredOnce(inFlight, true, cutH, cutOwner);
  }, 150_000);
});
