import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { bucketName } from '../storage/bucket-naming';
import type { EventDocument } from '../storage/event-document';
import { randomReportBody } from '../../test/support/random-report';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';

// Crash tests for the rollup builder: killed at every step of a build (a hook that throws stops
// it there, leaving exactly what a killed process leaves), answers stay exact, and the next run
// repairs: every dirty unit rebuilt, abandoned generations swept, no orphan cells.
const FROM = Date.parse('2026-10-20T00:00:00Z');
const TO = Date.parse('2026-10-24T00:00:00Z');
const caller: ApiKeyPrincipal = { id: 'crash', ownerIds: new Set(OWNERS) };
const random = prng(8);

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

class Killed extends Error {}

async function expectExact(queries = 25): Promise<void> {
  for (let i = 0; i < queries; i++) {
    const body = randomReportBody(random, FROM, TO);
    const [rolled, raw] = await Promise.all([
      f.rolled.report(caller, body).catch((e: Error) => e.message),
      f.raw.report(caller, body).catch((e: Error) => e.message),
    ]);
    expect({ body, rows: rolled }).toEqual({ body, rows: raw });
  }
}

/** Every cell document belongs to a published generation, and nothing is reserved any more. */
async function expectNoOrphans(): Promise<void> {
  const marks = await f.marks.collection.find({}).toArray();
  expect(marks.filter((m) => (m.pending ?? []).length > 0)).toEqual([]);
  const current = new Set(marks.filter((m) => m.b).map((m) => m.b!.g));
  const manifests = await f.db
    .collection<{ _id: string; g: string; ids: string[] }>('rollup_cells_manifests')
    .find({})
    .toArray();
  expect([...new Set(manifests.map((m) => m.g))].filter((g) => !current.has(g))).toEqual([]);
  const listed = manifests.reduce((n, m) => n + m.ids.length, 0);
  expect(await f.cells.collection.countDocuments({})).toBe(listed);
}

describe('rollup builder crashes', () => {
  // unit ids are `<level>:<start>`: level 0 hours (built from raw), 4 days (merged from 4-hour blocks), 6 4-day blocks
  test.each([
    ['after reserving an hour’s generation', 'afterReserve', '0:', 1],
    ['after reserving the 5th hour', 'afterReserve', '0:', 5],
    ['after writing an hour’s cells, before publishing', 'afterCells', '0:', 1],
    ['after writing a day’s merged cells, before publishing', 'afterCells', '4:', 1],
    ['after reserving a 4-day block', 'afterReserve', '6:', 1],
  ] as const)(
    'when the builder is killed %s, then answers stay exact and the next run repairs everything',
    async (_label, hook, level, nth) => {
      await f.write(randomEvents(random, 150, FROM, TO));
      await f.builder().runOnce();
      // late events: dirty units whose rebuild replaces a published generation
      await f.write(randomEvents(random, 40, FROM, TO));
      let calls = 0;
      const dying = f.builder({
        hooks: {
          [hook]: (unitId: string) => {
            if (unitId.startsWith(level) && ++calls === nth) throw new Killed(`killed ${hook} ${unitId}`);
          },
        },
      });
      await expect(dying.runOnce()).rejects.toBeInstanceOf(Killed);
      await expectExact();

      // the next run: its sweep treats the dead build's reservation as abandoned
      // its clock runs 5 ms ahead, so the reservation is past abandonMs without waiting
      const next = f.builder({ abandonMs: 1, now: () => new Date(Date.now() + 5) });
      for (let i = 0; i < 3; i++) await next.runOnce();
      expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
      await expectNoOrphans();
      const usedBefore = f.usage.rollupUnits;
      await expectExact();
      expect(f.usage.rollupUnits).toBeGreaterThan(usedBefore);
    },
    60_000,
  );

  test('when two builders run at once, then each unit is published once, answers are exact and nothing is left behind', async () => {
    await f.write(randomEvents(random, 150, FROM, TO));
    await Promise.all([f.builder().runOnce(), f.builder().runOnce()]);
    await f.write(randomEvents(random, 40, FROM, TO));
    await Promise.all([f.builder().runOnce(), f.builder().runOnce()]);
    for (let i = 0; i < 2; i++) await f.builder().runOnce();
    expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
    await expectNoOrphans();
    await expectExact();
  }, 60_000);

  test('when a writer dies between its two marks, then its hours stay on raw events until ROLLUP_ABANDON_MS, and are built after', async () => {
    await f.write(randomEvents(random, 100, FROM, TO));
    await f.builder().runOnce();
    // the dead writer: started marked, documents inserted, finished never marked
    const docs = randomEvents(random, 20, FROM + 86_400_000, FROM + 86_400_000 + 3_600_000);
    const ids = await f.marks.begin(docs.map((d) => d.created));
    await f.db
      .collection<EventDocument>(bucketName(PREFIX, docs[0]!.created))
      .insertMany(docs.filter((d) => bucketName(PREFIX, d.created) === bucketName(PREFIX, docs[0]!.created)));
    await f.builder().runOnce();
    const hour = (await f.marks.collection.findOne({ _id: ids[0] }))!;
    expect(hour.s).toBe(hour.f + 1);
    expect(isBuilt(markFromDocument(hour))).toBe(false);
    await expectExact();

    await f.builder({ abandonMs: 0 }).runOnce();
    expect(isBuilt(markFromDocument((await f.marks.collection.findOne({ _id: ids[0] }))!))).toBe(true);
    await expectExact();
  }, 60_000);
});
