import type { KeyObject } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
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
    const kv = await new Kvm(nc).open(bucket);
    expect(Buffer.from((await kv.get('2026-03-10'))!.value).toString('hex')).toBe(bytes(sa));
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

  test('when the period ends, then the old salt is purged from the bucket (no value, no history) and the new hash differs', async () => {
    const bucket = newBucket();
    let now = Date.parse('2026-03-10T23:59:59.000Z');
    const salts = new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: () => now }, logger);
    const old = await salts.current();
    const before = anonymousVisitorHash(old, '42', '203.0.113.9', UA);

    now += 2000;
    const fresh = await salts.current();
    expect(anonymousVisitorHash(fresh, '42', '203.0.113.9', UA)).not.toBe(before);

    const kv = await new Kvm(nc).open(bucket);
    const entry = await kv.get('2026-03-10');
    expect(entry === null || (entry.operation === 'PURGE' && entry.value.length === 0)).toBe(true);
    const history = [];
    for await (const e of await kv.history({ key: '2026-03-10' })) history.push(e);
    expect(history.filter((e) => e.value.length > 0)).toEqual([]);
    expect(Buffer.from((await kv.get('2026-03-11'))!.value).toString('hex')).toBe(bytes(fresh));
    // a backstop when no process purges: the bucket forgets within a period and a grace
    expect((await kv.status()).ttl).toBeLessThanOrEqual(DAY + 3_600_000);
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
