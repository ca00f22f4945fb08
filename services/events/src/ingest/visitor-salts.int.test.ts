import { randomBytes, type KeyObject } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { saltBucketContents } from '../../test/support/salt-store';
import { anonymousVisitorHash } from './visitor-hash';
import { VisitorSalts } from './visitor-salts';

const logger = createLogger({ service: 'visitor-salts-test', level: 'warn', silent: process.env.TEST_LOGS !== '1' });
const DAY = 86_400_000;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0';

let nc: NatsConnection;
const buckets: string[] = [];

beforeAll(async () => {
  nc = await connect({ servers: process.env.NATS_URL });
});
afterAll(async () => {
  const jsm = await jetstreamManager(nc);
  for (const b of buckets) await jsm.streams.delete(`KV_${b}`).catch(() => undefined);
  await nc.close();
});

function newBucket(): string {
  const b = uniqueName('salts');
  buckets.push(b);
  return b;
}

const bytes = (k: KeyObject) => k.export().toString('hex');

describe('visitor salts in the shared bucket', () => {
  test('when two processes ask for the salt of the same period at once, then both get the one value that was created first', async () => {
    const bucket = newBucket();
    const clock = () => Date.parse('2026-03-10T12:00:00Z');
    const a = new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: clock }, logger);
    const b = new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: clock }, logger);
    const [sa, sb] = await Promise.all([a.current(), b.current()]);
    expect(bytes(sa)).toHaveLength(64);
    expect(bytes(sb)).toBe(bytes(sa));
    expect(await saltBucketContents(nc, bucket)).toEqual({ '2026-03-10': bytes(sa) });
    // later hits of the period are answered from memory, without a promise
    expect(a.current()).toBe(sa);
  });

  test('when hits arrive while the salt of a new period is being fetched, then they wait for that one fetch', async () => {
    const salts = new VisitorSalts(
      nc,
      { bucket: newBucket(), replicas: 1, period: 'day', now: () => Date.parse('2026-03-10T12:00:00Z') },
      logger,
    );
    const first = salts.current();
    const second = salts.current();
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBe(first);
    await first;
  });

  test('when the period ends, then the old salt is erased from the bucket (no value, no marker, no history) and the new hash differs', async () => {
    const bucket = newBucket();
    let now = Date.parse('2026-03-10T23:59:59.000Z');
    const salts = new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: () => now }, logger);
    const old = await salts.current();
    const before = anonymousVisitorHash(old, '42', '203.0.113.9', UA);

    now += 2000;
    const fresh = await salts.current();
    expect(anonymousVisitorHash(fresh, '42', '203.0.113.9', UA)).not.toBe(before);

    expect(await saltBucketContents(nc, bucket)).toEqual({ '2026-03-11': bytes(fresh) });
    const history = [];
    for await (const e of await (await new Kvm(nc).open(bucket)).history({ key: '2026-03-10' })) history.push(e);
    expect(history).toEqual([]);
    // a backstop when no process erases: the bucket forgets within a period and a grace
    const { config } = await (await jetstreamManager(nc)).streams.info(`KV_${bucket}`);
    expect(config.max_age).toBe((DAY + 3_600_000) * 1_000_000);
  });

  test("when the bucket was made by an earlier version (32-byte salts, 1 KB values, a purge marker of an old day), then the salt stays, the settings become this version's and the marker is erased", async () => {
    const bucket = newBucket();
    const kv = await new Kvm(nc).create(bucket, { history: 1, ttl: DAY + 3_600_000, maxValueSize: 1024 });
    await kv.put('2026-03-09', randomBytes(32));
    await kv.purge('2026-03-09');
    const legacy = randomBytes(32);
    await kv.put('2026-03-10', legacy);
    const salts = new VisitorSalts(
      nc,
      { bucket, replicas: 1, period: 'day', now: () => Date.parse('2026-03-10T12:00:00Z') },
      logger,
    );
    expect(bytes(await salts.current())).toBe(legacy.toString('hex'));
    expect(await saltBucketContents(nc, bucket)).toEqual({ '2026-03-10': legacy.toString('hex') });
    const { config } = await (await jetstreamManager(nc)).streams.info(`KV_${bucket}`);
    expect(config.max_bytes).toBeGreaterThan(3 * 32_768);
    expect(config.max_msg_size).toBeGreaterThan(32_768);
  });

  test('when the bucket is deleted during a period (to start over), then the salt stays in memory and the first fetch of the next period creates bucket and salt again', async () => {
    const bucket = newBucket();
    let now = Date.parse('2026-03-10T22:00:00Z');
    const salts = new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: () => now }, logger);
    const old = await salts.current();
    await (await jetstreamManager(nc)).streams.delete(`KV_${bucket}`);
    now += 3_600_000;
    expect(salts.current()).toBe(old);

    now += 3_600_000;
    const fresh = await salts.current();
    expect(bytes(fresh)).not.toBe(bytes(old));
    expect(await saltBucketContents(nc, bucket)).toEqual({ '2026-03-11': bytes(fresh) });
  });

  test('when the period setting grows to a month, then the bucket max age grows with it', async () => {
    const bucket = newBucket();
    const now = () => Date.parse('2026-03-10T12:00:00Z');
    await new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now }, logger).current();
    await new VisitorSalts(nc, { bucket, replicas: 1, period: 'month', now }, logger).current();
    expect((await (await new Kvm(nc).open(bucket)).status()).ttl).toBe(31 * DAY + 3_600_000);
  });

  test('when NATS cannot be reached, then asking for the salt fails instead of hashing without it', async () => {
    const closed = await connect({ servers: process.env.NATS_URL });
    await closed.close();
    const salts = new VisitorSalts(closed, { bucket: newBucket(), replicas: 1, period: 'day' }, logger);
    await expect(Promise.resolve(salts.current())).rejects.toThrow();
  });
});
