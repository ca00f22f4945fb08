import { startServiceProcess, type ServiceProcess } from '@cm/testkit';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';
import { waitUntil } from '../../test/support/events-harness';

// The rollup role of a running events process with ROLLUP_THREADS=2 builds every unit of events
// written with their marks, and reports over those rollups answer what raw events answer.
const ADMIN = 'rollup-threads-admin-token-0123456789abcdef';
const FROM = Date.parse('2026-09-01T00:00:00Z');
const DAY = 86_400_000;
const caller: ApiKeyPrincipal = { id: 'threads', ownerIds: new Set(OWNERS) };

let f: RollupFixture;
let proc: ServiceProcess | undefined;
afterAll(async () => {
  await proc?.stop('SIGTERM');
  await f?.stop();
});

describe('the rollup role with builder threads', () => {
  test('when an events process runs the rollup role with two threads, then every unit of 20 days of events is built and reports over them equal raw', async () => {
    f = await startRollupFixture();
    await f.write(randomEvents(prng(5), 3000, FROM, FROM + 20 * DAY), 500);
    const started = await startServiceProcess('events', {
      NODE_ENV: 'test',
      EVENTS_ROLES: 'rollup',
      MONGO_URL: process.env.MONGO_URL,
      MONGO_DB: f.db.databaseName,
      ADMIN_TOKEN: ADMIN,
      ROLLUP_THREADS: '2',
      ROLLUP_GRACE_MS: '0',
      ROLLUP_INTERVAL_MS: '100',
      SHUTDOWN_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'info',
    });
    proc = started.proc;
    const status = async () =>
      (await (
        await fetch(`${started.baseUrl}/admin/v1/rollups`, { headers: { authorization: `Bearer ${ADMIN}` } })
      ).json()) as { dirty_units: Record<string, number>; pending_generations: number };
    await waitUntil(
      async () => {
        const s = await status();
        return s.pending_generations === 0 && Object.values(s.dirty_units).every((n) => n === 0);
      },
      120_000,
      'every unit built by the threads',
    );
    const built = await f.marks.collection.countDocuments({ b: { $exists: true } });
    expect(built).toBeGreaterThan(20 * 24);
    for (const owner of OWNERS) {
      const body = { owner_id: owner, created__gte: '2026-09-01', created__lte: '2026-09-20', group_by: 'url' };
      f.usage.rollupUnits = 0;
      const rolled = await f.rolled.report(caller, body);
      expect(f.usage.rollupUnits).toBeGreaterThan(0);
      expect(rolled).toEqual(await f.raw.report(caller, body));
    }
    expect(started.proc.output()).not.toMatch(/rollup pass failed|rollup unit build failed/);
  }, 180_000);
});
