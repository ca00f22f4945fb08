import { createLogger } from '@cm/platform';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { RetentionJob } from '../retention/retention-job';
import { bucketName } from '../storage/bucket-naming';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { CellStore } from './cell-store';
import { RollupRebuild } from './rollup-rebuild';
import { RollupRetention } from './rollup-retention';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const oldDay = today - 20 * DAY;
const recentDay = today - 2 * DAY;
const caller: ApiKeyPrincipal = { id: 'retention', ownerIds: new Set(OWNERS) };
const silent = createLogger({ service: 'rollup-retention-test', level: 'error', silent: true });
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const report = (fx: RollupFixture, service: 'rolled' | 'raw', t: number) =>
  fx[service].report(caller, { owner_id: OWNERS[0], created__gte: day(t), created__lte: day(t) });

let f: RollupFixture;
const random = prng(3);
beforeEach(async () => {
  f = await startRollupFixture();
  await f.write([
    ...randomEvents(random, 120, oldDay, oldDay + DAY),
    ...randomEvents(random, 120, recentDay, recentDay + DAY),
  ]);
  await f.builder().runOnce();
});
afterEach(async () => {
  await f.stop();
});

function retentionJob(rollupDays: number): RetentionJob {
  const retention = new RollupRetention(f.marks, new CellStore(f.db));
  return new RetentionJob(
    f.db,
    {
      prefix: PREFIX,
      retentionDays: 10,
      intervalMs: 60_000,
      rollups: { retentionDays: rollupDays, dropBefore: (c) => retention.dropBefore(c) },
    },
    silent,
  );
}

describe('rollup retention', () => {
  test('when a day passes retention, then its rollups go before its raw bucket, answers stay exact and kept days still use rollups', async () => {
    expect((await report(f, 'rolled', oldDay)).length).toBeGreaterThan(0);
    await retentionJob(10).runOnce();
    const names = (await f.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).not.toContain(bucketName(PREFIX, new Date(oldDay)));
    expect(await f.marks.collection.countDocuments({ t: { $lt: oldDay + DAY } })).toBe(0);
    // reports plan with marks at most REPORT_MARKS_MAX_AGE_MS old: once their view has read the
    // marks again, the dropped day is gone from every answer
    await f.caughtUp();
    expect(await report(f, 'rolled', oldDay)).toEqual([]);
    const used = f.usage.rollupUnits;
    expect(await report(f, 'rolled', recentDay)).toEqual(await report(f, 'raw', recentDay));
    expect(f.usage.rollupUnits).toBeGreaterThan(used);
    // the dropped day's cells are gone too: only generations of units still marked are left
    const marked = new Set((await f.marks.collection.find({}).toArray()).flatMap((m) => (m.b ? [m.b.g] : [])));
    const manifests = await f.db.collection<{ g: string }>('rollup_cells_manifests').find({}).toArray();
    expect(manifests.every((m) => marked.has(m.g))).toBe(true);
  });

  test('when rollups are kept longer than raw events, then a day past raw retention is still answered from its rollups and cannot be rebuilt', async () => {
    const before = await report(f, 'rolled', oldDay);
    expect(before.length).toBeGreaterThan(0);
    await retentionJob(30).runOnce();
    expect(await report(f, 'raw', oldDay)).toEqual([]);
    expect(await report(f, 'rolled', oldDay)).toEqual(before);
    await expect(
      new RollupRebuild(f.marks, { rawRetentionDays: 10, maxDays: 400 }).rebuild(new Date(oldDay), new Date(recentDay)),
    ).rejects.toThrow(/invalid body/);
    // a builder never recomputes an hour whose raw events are gone, even if it were marked
    await f.marks.begin([new Date(oldDay + 3_600_000)]).then((ids) => f.marks.end(ids));
    await f.builder({ rawRetentionDays: 10 }).runOnce();
    expect(await report(f, 'rolled', oldDay)).not.toEqual([]);
  });
});
