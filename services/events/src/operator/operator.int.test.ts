import { jetstreamManager } from '@nats-io/jetstream';
import { createLogger } from '@cm/platform';
import { BucketWriter } from '../consumer/bucket-writer';
import { CellStore } from '../rollups/cell-store';
import { HeldMarks } from '../rollups/held-marks';
import { RollupBuilder } from '../rollups/rollup-builder';
import { RollupMarks } from '../rollups/rollup-marks';
import { bucketName } from '../storage/bucket-naming';
import { BUILDER_DEFAULTS, prng, randomEvents } from '../../test/support/rollup-fixture';
import { writerConsumerConfig } from '../stream/stream-config';
import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';

// a reporting-only process: the operator routes are mounted, but no consumer drains the stream,
// so the test controls the writer consumer and sees its lag exactly
let h: EventsHarness;

beforeAll(async () => {
  h = await startEventsHarness({ EVENTS_ROLES: 'reporting', RETENTION_DAYS: '10' });
});
afterAll(async () => {
  await h.stop();
});

async function call(
  method: string,
  path: string,
  opts: { token?: string | null; body?: string; contentType?: string } = {},
) {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? TEST_ADMIN_TOKEN : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  const res = await fetch(h.baseUrl + path, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
const collections = async () => (await h.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);

describe('GET /admin/v1/pipeline', () => {
  test('when the operator token is missing or wrong, then 401 in the error shape', async () => {
    for (const token of [null, 'wrong-token-0123456789']) {
      const res = await call('GET', '/admin/v1/pipeline', { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  test('when no consumer was created yet, then the stream and an empty dead-letter stream are shown and consumer is null', async () => {
    const res = await call('GET', '/admin/v1/pipeline/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      stream: expect.objectContaining({
        name: h.config.EVENTS_STREAM,
        subjects: [`${h.config.EVENTS_SUBJECT_PREFIX}.>`],
        messages: 0,
        duplicate_window_seconds: 300,
        replicas: 1,
        max_bytes: h.config.EVENTS_STREAM_MAX_BYTES,
      }),
      consumer: null,
      dead_letters: { name: `${h.config.EVENTS_STREAM}_DLQ`, messages: 0, bytes: 0, last_ts: null },
    });
  });

  test('when events are published and nothing consumes them, then the consumer lag counts them and dead letters are counted', async () => {
    const jsm = await jetstreamManager(h.nc);
    await jsm.consumers.add(h.config.EVENTS_STREAM, writerConsumerConfig(h.config));
    const owner = newOwnerId();
    for (let i = 0; i < 3; i++) await h.publishEvent({ owner_id: owner });
    await h.js.publish(h.config.EVENTS_DEAD_LETTER_SUBJECT, 'not an event');

    const res = await call('GET', '/admin/v1/pipeline');
    expect(res.status).toBe(200);
    expect(res.body.stream).toMatchObject({ messages: 3, first_seq: 1, last_seq: 3, consumer_count: 1 });
    expect(res.body.stream.bytes).toBeGreaterThan(0);
    expect(res.body.stream.last_ts).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.body.consumer).toMatchObject({
      name: h.config.CONSUMER_DURABLE,
      num_pending: 3,
      num_ack_pending: 0,
      num_redelivered: 0,
      last_delivered: { stream_seq: 0, consumer_seq: 0, last_active: null },
      last_acked: { stream_seq: 0, consumer_seq: 0 },
    });
    expect(res.body.dead_letters).toMatchObject({ messages: 1 });
  });
});

describe('POST /admin/v1/retention/run', () => {
  const prefix = () => h.config.BUCKET_PREFIX;

  test('when the operator token is missing, then 401 and nothing is dropped', async () => {
    const old = bucketName(prefix(), daysAgo(50));
    await h.db.collection(old).insertOne({ marker: 'old' });
    const res = await call('POST', '/admin/v1/retention/run', { token: null });
    expect(res.status).toBe(401);
    expect(await collections()).toContain(old);
  });

  test.each([
    ['dry_run a string', '{"dry_run":"yes"}', 'dry_run'],
    ['an unknown field', '{"force":true}', 'force'],
    ['an array', '[]', 'retention run'],
  ])('when the body has %s, then 400 naming %s', async (_what, body, field) => {
    const res = await call('POST', '/admin/v1/retention/run', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('when the body is malformed JSON or plain text, then 400 / 415', async () => {
    expect((await call('POST', '/admin/v1/retention/run', { body: '{"dry_run":' })).status).toBe(400);
    expect((await call('POST', '/admin/v1/retention/run', { body: 'dry_run', contentType: 'text/plain' })).status).toBe(
      415,
    );
  });

  test('when a dry run is asked, then expired buckets are named and kept; a real run drops only them; a second run drops nothing', async () => {
    const expired = [bucketName(prefix(), daysAgo(50)), bucketName(prefix(), daysAgo(12))].sort();
    const fresh = [bucketName(prefix(), daysAgo(0)), bucketName(prefix(), daysAgo(9))];
    const other = `${prefix()}_notes`;
    for (const name of [...expired, ...fresh, other]) await h.db.collection(name).insertOne({ marker: name });

    const dry = await call('POST', '/admin/v1/retention/run', {
      body: 'dry_run=true',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ dry_run: true, retention_days: 10, dropped: expired, kept: 2 });
    for (const name of expired) expect(await collections()).toContain(name);

    const run = await call('POST', '/admin/v1/retention/run', { body: '{}' });
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ dry_run: false, retention_days: 10, dropped: expired, kept: 2 });
    const left = await collections();
    for (const name of expired) expect(left).not.toContain(name);
    for (const name of [...fresh, other]) expect(left).toContain(name);

    const again = await call('POST', '/admin/v1/retention/run');
    expect(again.body).toEqual({ dry_run: false, retention_days: 10, dropped: [], kept: 2 });
  });
});

describe('POST /admin/v1/retention/run with rollups', () => {
  test('when a day with rollups is past retention, then a run drops its marks and cells with its raw bucket', async () => {
    // rollups of one day 50 days back, written and built the way the consumer and the rollup role do
    const marks = new RollupMarks(h.db);
    const cells = new CellStore(h.db);
    const held = new HeldMarks(marks, { holdMs: 10_000, lingerMs: 0 });
    const day = Math.floor(daysAgo(50).getTime() / 86_400_000) * 86_400_000;
    const old = bucketName(h.config.BUCKET_PREFIX, new Date(day));
    const writer = new BucketWriter(
      h.db,
      createLogger({ service: 't', level: 'error', silent: true }),
      { w: 'majority', journal: true },
      held,
    );
    await writer.write(old, randomEvents(prng(5), 40, day, day + 86_400_000));
    await held.drain();
    await new RollupBuilder(h.db, marks, cells, { ...BUILDER_DEFAULTS, prefix: h.config.BUCKET_PREFIX }).runOnce();
    expect(await marks.collection.countDocuments({ b: { $exists: true } })).toBeGreaterThan(5);
    expect(await cells.collection.countDocuments({})).toBeGreaterThan(0);

    const run = await call('POST', '/admin/v1/retention/run', { body: '{}' });
    expect(run.status).toBe(200);
    expect(run.body.dropped).toContain(old);
    // every unit of that day (hour .. 32-day block) ended before the cutoff: all of them go; only
    // the blocks the cutoff falls inside are left, retired, without cells
    expect(await marks.collection.countDocuments({ retired: { $exists: false } })).toBe(0);
    expect(await marks.collection.countDocuments({ b: { $exists: true } })).toBe(0);
    expect(await cells.collection.countDocuments({})).toBe(0);
    expect(await h.db.collection('rollup_cells_manifests').countDocuments({})).toBe(0);
  });
});

describe('pipeline with a running consumer', () => {
  let all: EventsHarness;
  beforeAll(async () => {
    all = await startEventsHarness();
  });
  afterAll(async () => {
    await all.stop();
  });

  test('when the consumer has written every event, then its lag is 0 and the ack floor reaches the last sequence', async () => {
    const owner = await all.registerOwner();
    for (let i = 0; i < 2; i++) await all.publishEvent({ owner_id: owner });
    await all.waitForStored(2);
    let body: any;
    await waitUntil(
      async () => {
        const res = await fetch(`${all.baseUrl}/admin/v1/pipeline`, {
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        });
        body = await res.json();
        return body.consumer?.last_acked.stream_seq === 2;
      },
      5000,
      'the consumer to acknowledge both events',
    );
    expect(body.consumer).toMatchObject({ num_pending: 0, num_ack_pending: 0, last_delivered: { stream_seq: 2 } });
    expect(body.consumer.last_delivered.last_active).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(body.stream.messages).toBe(2);
  });
});
