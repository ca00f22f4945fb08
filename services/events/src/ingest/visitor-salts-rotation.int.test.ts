import type { KeyObject } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { saltBucketContents } from '../../test/support/salt-store';
import { VisitorSalts } from './visitor-salts';

/**
 * Ingest processes whose clocks differ, at a period boundary: each VisitorSalts has a connection
 * of its own, as separate processes would, and a clock of the shared true time `t` plus its skew.
 */
const logger = createLogger({
  service: 'visitor-salts-rotation-test',
  level: 'warn',
  silent: process.env.TEST_LOGS !== '1',
});
const BOUNDARY = Date.parse('2026-03-11T00:00:00Z');

let admin: NatsConnection;
const connections: NatsConnection[] = [];
const buckets: string[] = [];

beforeAll(async () => {
  admin = await connect({ servers: process.env.NATS_URL });
});
afterAll(async () => {
  for (const c of connections) await c.close();
  const jsm = await jetstreamManager(admin);
  for (const b of buckets) await jsm.streams.delete(`KV_${b}`).catch(() => undefined);
  await admin.close();
});

const hex = (k: KeyObject) => k.export().toString('hex');

function world() {
  const bucket = uniqueName('salts');
  buckets.push(bucket);
  const clock = { t: 0 };
  const start = async (skewMs: number) => {
    const nc = await connect({ servers: process.env.NATS_URL });
    connections.push(nc);
    return new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: () => clock.t + skewMs }, logger);
  };
  return { bucket, clock, start };
}

describe('visitor salts at a period boundary, processes with clocks that differ', () => {
  test('when the processes cross the boundary one by one and one restarts behind it, then the new day has exactly one salt, each process uses it from its first hit after its own clock crosses, and the old one is gone', async () => {
    const { bucket, clock, start } = world();
    clock.t = BOUNDARY - 10_000;
    const ahead = await start(2_000);
    const exact = await start(0);
    const behind = await start(-3_000);
    const old = hex(await ahead.current());
    expect(hex(await exact.current())).toBe(old);
    expect(hex(await behind.current())).toBe(old);

    // 1 s before midnight: the process 2 s ahead has crossed, the others still hash with the old salt from memory
    clock.t = BOUNDARY - 1_000;
    const fresh = hex(await ahead.current());
    expect(fresh).not.toBe(old);
    expect(hex(exact.current() as KeyObject)).toBe(old);
    expect((await saltBucketContents(admin, bucket))['2026-03-11']).toBe(fresh);

    // 1 s after midnight a process restarts whose clock is 3 s behind: it must not bring back the old day's salt
    clock.t = BOUNDARY + 1_000;
    const restarted = await start(-3_000);
    expect(hex(await restarted.current())).toBe(fresh);
    expect(hex(await exact.current())).toBe(fresh);
    expect(hex(behind.current() as KeyObject)).toBe(old);
    expect((await saltBucketContents(admin, bucket))['2026-03-11']).toBe(fresh);

    // the last clock crosses
    clock.t = BOUNDARY + 3_001;
    expect(hex(await behind.current())).toBe(fresh);
    // the restarted process keeps the new salt from memory now that its clock says the new day too
    expect(hex(restarted.current() as KeyObject)).toBe(fresh);
    // the new salt alone: the old day's is gone, without a marker left in its place
    expect(await saltBucketContents(admin, bucket)).toEqual({ '2026-03-11': fresh });
  });

  test('when six processes with clocks spread over ±5 s all ask at once, second by second across the boundary, then there are two salts in all, each process switches at its own boundary, and the new salt never changes once created', async () => {
    const { bucket, clock, start } = world();
    const skews = [-5_000, -2_000, -500, 0, 700, 4_000];
    const procs = await Promise.all(skews.map((s) => start(s)));
    const seen: { skew: number; clockMs: number; salt: string }[] = [];
    let created: string | undefined;
    for (let t = BOUNDARY - 6_000; t <= BOUNDARY + 6_000; t += 1_000) {
      clock.t = t;
      const salts = await Promise.all(procs.map(async (p) => hex(await p.current())));
      salts.forEach((salt, i) => seen.push({ skew: skews[i]!, clockMs: t + skews[i]!, salt }));
      const stored = (await saltBucketContents(admin, bucket))['2026-03-11'];
      created ??= stored;
      // once the new day's salt exists, no process replaces or removes it
      if (created !== undefined) expect(stored).toBe(created);
    }
    expect(await saltBucketContents(admin, bucket)).toEqual({ '2026-03-11': created });
    const before = new Set(seen.filter((s) => s.clockMs < BOUNDARY - 5_000).map((s) => s.salt));
    const after = new Set(seen.filter((s) => s.clockMs >= BOUNDARY).map((s) => s.salt));
    expect(before.size).toBe(1);
    expect(after).toEqual(new Set([created]));
    expect(new Set(seen.map((s) => s.salt)).size).toBe(2);
    // a process whose clock has not crossed yet uses the old salt unless it had to fetch after the new one existed
    for (const s of seen.filter((x) => x.clockMs < BOUNDARY))
      expect(s.salt === created || before.has(s.salt)).toBe(true);
  });

  test.each(['purge', 'delete'] as const)(
    'when the key of the current period holds a %s marker, then no salt is created over it',
    async (operation) => {
      const { bucket, clock, start } = world();
      clock.t = BOUNDARY + 60_000;
      expect(hex(await (await start(0)).current())).toHaveLength(64);
      // the marker an earlier version's purge (or an operator's kv del) leaves behind
      const kv = await new Kvm(admin).open(bucket);
      await kv[operation]('2026-03-11');
      const marker = operation === 'purge' ? 'PURGE' : 'DEL';
      expect(await saltBucketContents(admin, bucket)).toEqual({ '2026-03-11': marker });
      const later = await start(0);
      const refused = later.current();
      await expect(Promise.resolve(refused)).rejects.toThrow(/2026-03-11/);
      // the next hits are refused from memory for a while, then the bucket is read again
      expect(later.current()).toBe(refused);
      clock.t += 10_000;
      const again = later.current();
      expect(again).not.toBe(refused);
      await expect(Promise.resolve(again)).rejects.toThrow(/2026-03-11/);
      expect(await saltBucketContents(admin, bucket)).toEqual({ '2026-03-11': marker });
    },
  );
});
