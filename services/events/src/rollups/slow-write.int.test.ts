import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { bucketName } from '../storage/bucket-naming';
import type { InsertHook } from '../../test/support/insert-hook';
import { waitUntil } from '../../test/support/events-harness';
import { randomReportBody } from '../../test/support/random-report';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';
import { unitId } from './rollup-units';

// A live consumer whose insert is stuck (say on a lagging majority) for longer than
// ROLLUP_ABANDON_MS must not look dead to the builder: a unit published without that write would
// answer reports without its events once the insert lands.
const HOUR = Date.parse('2026-10-20T10:00:00Z');
const DAY = { from: '2026-10-20', to: '2026-10-20' };
const REFRESH_MS = 200;
const ABANDON_MS = 1000;
const SLOW = 'slow-write';
const caller: ApiKeyPrincipal = { id: 'slow', ownerIds: new Set(OWNERS) };
const random = prng(21);

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let clock = Date.now();
const entered = deferred();
const release = deferred();
const landed = deferred();
const answer = deferred();

/** The slow insert: waits before it reaches the database, and its answer comes back late. */
const slowInserts: InsertHook = async (docs, insert) => {
  if (!docs.some((d) => d.content_id === SLOW)) return insert();
  entered.resolve();
  await release.promise;
  const result = await insert();
  landed.resolve();
  await answer.promise;
  return result;
};

let f: RollupFixture;
beforeAll(async () => {
  f = await startRollupFixture({ now: () => clock, holdMs: REFRESH_MS, insertHook: slowInserts });
});
afterAll(async () => {
  release.resolve();
  answer.resolve();
  await f.stop();
});

async function expectExact(): Promise<void> {
  const bodies = [
    ...OWNERS.map((owner_id) => ({ owner_id, created__gte: DAY.from, created__lte: DAY.to })),
    ...Array.from({ length: 10 }, () => randomReportBody(random, HOUR, HOUR + 3_600_000)),
  ];
  for (const body of bodies) {
    const [rolled, raw] = await Promise.all([
      f.rolled.report(caller, body).catch((e: Error) => e.message),
      f.raw.report(caller, body).catch((e: Error) => e.message),
    ]);
    expect({ body, rows: rolled }).toEqual({ body, rows: raw });
  }
}

describe('a slow write and ROLLUP_ABANDON_MS', () => {
  test('when an insert takes longer than the abandon time, then its marks stay fresh, the builder does not publish its units without it, and rollups answer as raw events', async () => {
    const builder = f.builder({ abandonMs: ABANDON_MS, now: () => new Date(clock) });
    const hourMark = async () => (await f.marks.collection.findOne({ _id: unitId({ level: 0, start: HOUR }) }))!;
    await f.write(randomEvents(random, 100, HOUR, HOUR + 3_600_000));
    expect((await builder.runOnce()).built[0]).toBeGreaterThan(0);
    const built = (await hourMark()).b;

    const slowDocs = randomEvents(random, 5, HOUR, HOUR + 3_600_000).map((d, i) => ({
      ...d,
      content_id: SLOW,
      created: new Date(HOUR + 60_000 * (i + 1)),
    }));
    const writing = f.writer.write(bucketName('events', new Date(HOUR)), slowDocs);
    await entered.promise;
    // the write stays in flight for twice the abandon time; each interval its marks are stored again
    for (let waited = 0; waited <= 2 * ABANDON_MS; waited += REFRESH_MS) {
      clock += REFRESH_MS;
      await waitUntil(
        async () => (await hourMark()).at.getTime() === clock,
        5000,
        'the write in flight to refresh its marks',
      );
    }
    expect(await hourMark()).toMatchObject({ s: 2, f: 1, b: built });
    expect((await builder.runOnce()).built.every((n) => n === 0)).toBe(true);
    expect((await hourMark()).b).toEqual(built);

    // the insert lands; the consumer has not heard back yet
    release.resolve();
    await landed.promise;
    await expectExact();

    answer.resolve();
    expect(await writing).toEqual(slowDocs.map(() => ({ status: 'written' })));
    await f.held.drain();
    const usedBefore = f.usage.rollupUnits;
    expect((await builder.runOnce()).built[0]).toBeGreaterThan(0);
    expect(await hourMark()).toMatchObject({ s: 2, f: 2, b: { s: 2, f: 2 } });
    await expectExact();
    expect(f.usage.rollupUnits).toBeGreaterThan(usedBefore);
  }, 60_000);
});
