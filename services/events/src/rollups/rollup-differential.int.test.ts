import { ValidationError, createLogger } from '@cm/platform';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { RetentionJob } from '../retention/retention-job';
import { bucketDay, bucketName } from '../storage/bucket-naming';
import { randomReportBody } from '../../test/support/random-report';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { DAMAGES, damagePages } from '../../test/support/damage-pages';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';
import { RollupRebuild } from './rollup-rebuild';
import { RollupRetention } from './rollup-retention';
import { LEVELS, unitAt, unitEnd, unitId, type UnitRef } from './rollup-units';

// Differential test: a report planned over rollups equals the same report from raw events only,
// for random event sets with late events, duplicates and redeliveries and random queries, while
// rollups are complete, partly stale, or being built. REPORT_DIFF_SEED reproduces a run.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const QUERIES_PER_CHECK = Number(process.env.REPORT_DIFF_QUERIES ?? 250);
const FROM = Date.parse('2026-10-23T00:00:00Z');
const TO = Date.parse('2026-11-03T00:00:00Z'); // covers the European (10-25) and US (11-01) autumn DST changes
const DAY = 86_400_000;
const caller: ApiKeyPrincipal = { id: 'diff', ownerIds: new Set(OWNERS) };
/** Page columns a damage hits: the keys, counts, visitors, latest event, percentiles, reach, sums. */
const COLUMNS = ['k', 'n', 'u', 'l', 'q', 'r', 's'];
// a floor the fixture's small audience both passes and misses (most countries have a few visitors
// a day), so both paths fold and withhold the same rows from their own merged groups
const COUNTRY_FLOOR = 3;
/** Rows the floor made (below_floor country, withheld numbers) and country rows it let through, over all comparisons. */
const floorRows = { folded: 0, withheld: 0, shown: 0 };

let f: RollupFixture;
const random = prng(SEED);

beforeEach(async () => {
  f = await startRollupFixture({ countryFloor: COUNTRY_FLOOR });
});
afterEach(async () => {
  await f.stop();
});

/** Runs random queries on both services and fails on the first difference (with seed and query). */
async function compareRandomQueries(
  phase: string,
  from = FROM - 2 * DAY,
  to = TO + 2 * DAY,
  queries = QUERIES_PER_CHECK,
  fixed: Array<Record<string, unknown>> = [],
  minRollupUnits = queries,
): Promise<number> {
  let compared = 0;
  let rows = 0;
  const before = f.usage.rollupUnits;
  for (let i = 0; i < queries; i++) {
    const body = fixed[i] ?? randomReportBody(random, from, to);
    const [rolled, raw] = await Promise.all([
      answer(() => f.rolled.report(caller, body)),
      answer(() => f.raw.report(caller, body)),
    ]);
    if (JSON.stringify(rolled) !== JSON.stringify(raw)) {
      throw new Error(
        `seed ${SEED}, ${phase}, query ${i}: ${JSON.stringify(body)}\nrollups: ${JSON.stringify(rolled).slice(0, 2000)}\nraw:     ${JSON.stringify(raw).slice(0, 2000)}`,
      );
    }
    compared++;
    if (!Array.isArray(raw)) continue;
    rows += raw.length;
    for (const row of raw as Array<Record<string, unknown>>) {
      if (row.country === 'below_floor') floorRows.folded++;
      else if (typeof row.country === 'string' && row.country !== 'unknown' && !row.below_floor) floorRows.shown++;
      if (row.below_floor === true) floorRows.withheld++;
    }
  }
  // the comparison means something only if reports have rows and rollups answered parts of them
  expect(rows).toBeGreaterThan(queries);
  expect(f.usage.rollupUnits - before).toBeGreaterThan(minRollupUnits);
  return compared;
}

async function answer(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ValidationError) return { error: err.details };
    throw err;
  }
}

/** One random event set through all phases: built, stale, built while written, caught up. */
async function differentialRun(events: number): Promise<number> {
  // 1. events written, some batches twice (redelivery: duplicates are refused, counted once)
  const first = randomEvents(random, events, FROM, TO);
  await f.write(first);
  await f.write(first.slice(0, events / 8), 7);
  await f.builder().runOnce();
  let compared = await compareRandomQueries('built');

  // 2. late events into hours and days already built, plus redelivered ones: those units are dirty now
  await f.write([...randomEvents(random, events / 4, FROM, TO), ...first.slice(100, 140)], 13);
  compared += await compareRandomQueries('stale');

  // 3. events arriving while units are being built: each reservation lets a write land first
  const during = randomEvents(random, events / 5, FROM, TO);
  let next = 0;
  const builder = f.builder({
    hooks: {
      afterReserve: async () => {
        if (next < during.length) await f.write(during.slice(next, (next += 10)), 10);
      },
    },
  });
  await builder.runOnce();
  compared += await compareRandomQueries('built while writing');

  // 4. broken and failing units at every level: some built marks point at cells that are gone
  // (whole generations, or one page a directory lists), and some builds fail on every attempt
  const built = (await f.marks.collection.find({ b: { $exists: true } }).toArray()).filter(() => random() < 0.08);
  for (const [i, mark] of built.entries()) {
    if (i % 2 === 0) await f.cells.dropGenerations([mark.b!.g]);
    else await f.cells.collection.deleteOne({ g: mark.b!.g, f: 'p' });
  }
  await f.write(randomEvents(random, events / 8, FROM, TO), 11);
  const refused = new Set(
    (await f.marks.collection.find({ dirty: true }).toArray()).filter(() => random() < 0.3).map((m) => m._id),
  );
  const writePages = f.cells.writePages.bind(f.cells);
  f.cells.writePages = async (g, parts, docs) => {
    if (refused.has(g.slice(0, g.indexOf('@')))) throw new Error('cells refused by the test');
    return writePages(g, parts, docs);
  };
  await f.builder().runOnce();
  compared += await compareRandomQueries('broken and failing units');
  f.cells.writePages = writePages;

  // 5. damaged pages at every level: pages of built units that do not decode (cut short, a wrong
  // leading byte, noise, a document of another format); late writes make parents of some dirty,
  // so the builder merges damaged children as well as reports reading them
  await f.write(randomEvents(random, events / 10, FROM, TO), 9);
  const damaged = await damageRandomPages();
  await f.builder({ failureBackoff: { baseMs: 0, maxMs: 0 } }).runOnce();
  compared += await compareRandomQueries('damaged pages');

  // 6. caught up again: broken and damaged units were reset by the reports or the builder, and rebuilt
  for (let i = 0; i < 12 && (await f.marks.collection.countDocuments({ dirty: true })) > 0; i++)
    await f.builder({ failureBackoff: { baseMs: 0, maxMs: 0 } }).runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  // the dirty parent was built, so its damaged child was met and contained: no longer current
  const current = new Set((await f.marks.collection.find({}).toArray()).map((m) => m.b?.g));
  if (damaged.underDirtyParent) expect(current.has(damaged.underDirtyParent)).toBe(false);
  compared += await compareRandomQueries('caught up');
  return compared;
}

/**
 * Damages one owner's pages of one family in about one built unit in eight, and in one built unit
 * whose parent is dirty (the builder merges it next); returns that one's generation.
 */
async function damageRandomPages(): Promise<{ generations: string[]; underDirtyParent?: string }> {
  const marks = await f.marks.collection.find({}).toArray();
  const built = marks.filter((m) => isBuilt(markFromDocument(m)));
  const dirtyParents = new Set(marks.filter((m) => m.dirty && !m.retired && m.l > 0).map((m) => m._id));
  const underDirty = built.find((m) => dirtyParents.has(unitId(parentOf({ level: m.l, start: m.t }))));
  const chosen = built.filter((m) => m === underDirty || random() < 0.125);
  const generations: string[] = [];
  for (const mark of chosen) {
    const pages = await f.cells.collection.find({ g: mark.b!.g }, { projection: { o: 1, f: 1 } }).toArray();
    if (pages.length === 0) continue;
    const page = pages[Math.floor(random() * pages.length)]!;
    // the keys column is on every page: the unit under a dirty parent is surely damaged
    const column = mark === underDirty ? 'k' : COLUMNS[Math.floor(random() * COLUMNS.length)]!;
    const damage = DAMAGES[Math.floor(random() * DAMAGES.length)]!;
    const ids = await damagePages(f.cells, { g: mark.b!.g, owner: page.o, families: [page.f] }, column, damage, random);
    if (ids.length > 0) generations.push(mark.b!.g);
  }
  expect(generations.length).toBeGreaterThan(0);
  const target = underDirty?.b?.g;
  return { generations, underDirtyParent: target && generations.includes(target) ? target : undefined };
}

/** The unit one kept level up that contains this one. */
function parentOf(unit: UnitRef): UnitRef {
  const above = LEVELS[LEVELS.indexOf(unit.level) + 1] ?? unit.level;
  return unitAt(above, unit.start);
}

describe(`rollups vs raw events (seed ${SEED}, REPORT_DIFF_SEED reproduces)`, () => {
  test.each([[400], [800]])(
    'when %d random events are rolled up, made stale, rebuilt while written, broken and failing, damaged, and caught up, then every random report equals the raw-only report',
    async (events) => {
      const before = { ...floorRows };
      expect(await differentialRun(events)).toBe(6 * QUERIES_PER_CHECK);
      // the floor was exercised: countries folded and shown, filtered rows withheld
      expect(floorRows.folded).toBeGreaterThan(before.folded);
      expect(floorRows.shown).toBeGreaterThan(before.shown);
      expect(floorRows.withheld).toBeGreaterThan(before.withheld);
    },
    // a guard against a hang, not a time bound: about 50 s on a busy 2-core machine, minutes when
    // the whole suite shares it
    600_000,
  );
});

// Retention inside the 16-day block [10-10, 10-26) (split at 10-18, 10-22, 10-24 ...): events over
// all of it, a cutoff at one position relative to the units, late writes and a rebuild.
const RET_FROM = Date.parse('2026-10-10T00:00:00Z');
const RET_TO = Date.parse('2026-10-27T00:00:00Z');
const RETENTION_QUERIES = Math.max(12, Math.round(QUERIES_PER_CHECK / 20));
/** Reports over the whole window first: they use the largest units, which random ranges rarely cover. */
const WHOLE_WINDOW = OWNERS.flatMap((owner) => [
  { owner_id: owner, created__gte: '2026-10-10', created__lte: '2026-10-26' },
  {
    owner_id: owner,
    created__gte: '2026-10-10',
    created__lte: '2026-10-26',
    interval: 'week',
    group_by: 'url',
    metadata: 'campaign',
  },
]);
const silent = createLogger({ service: 'rollup-differential', level: 'error', silent: true });

/**
 * The scheduled job's pass for the day the cutoff falls in (its `now` chosen so RETENTION_DAYS=10
 * keeps that day), then, for a cutoff inside the day, the rollups' rule at the exact instant with
 * the raw events before it deleted: the same rule at a finer grain.
 */
async function retainFrom(cutoff: number): Promise<Date> {
  const cutoffDay = Math.floor(cutoff / DAY) * DAY;
  const now = new Date(cutoffDay + 10 * DAY + 3_600_000);
  const rollups = new RollupRetention(f.marks, f.cells);
  await new RetentionJob(
    f.db,
    {
      prefix: PREFIX,
      retentionDays: 10,
      intervalMs: 60_000,
      rollups: { retentionDays: 10, dropBefore: (c) => rollups.dropBefore(c) },
    },
    silent,
  ).runOnce(now);
  if (cutoff > cutoffDay) {
    await rollups.dropBefore(cutoff);
    await f.db.collection(bucketName(PREFIX, new Date(cutoffDay))).deleteMany({ created: { $lt: new Date(cutoff) } });
  }
  const names = (await f.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  expect(names.filter((n) => (bucketDay(PREFIX, n)?.getTime() ?? Infinity) < cutoffDay)).toEqual([]);
  return now;
}

/** Dirty units that ended and are not retired: the builder should have caught up on all of them. */
async function buildableDirty(): Promise<string[]> {
  const dirty = await f.marks.collection.find({ dirty: true }).toArray();
  return dirty.filter((m) => !m.retired && unitEnd({ level: m.l, start: m.t }) <= Date.now()).map((m) => m._id);
}

describe(`rollups vs raw events after retention (seed ${SEED})`, () => {
  test.each([
    ['on a day edge inside blocks of 2 to 32 days', '2026-10-19T00:00:00Z'],
    ['on the 8-day block edge (inside the 16- and 32-day blocks)', '2026-10-18T00:00:00Z'],
    ['on an 8-hour block edge inside a day', '2026-10-20T16:00:00Z'],
    ['inside an hour (inside every unit above it)', '2026-10-21T13:27:11.500Z'],
  ])(
    'when retention cuts %s (%s), then late writes and a rebuild, then every random report equals the raw-only report',
    async (_where, at) => {
      const cutoff = Date.parse(at);
      await f.write(randomEvents(random, 250, RET_FROM, RET_TO));
      await f.builder().runOnce();
      const now = await retainFrom(cutoff);

      // late events far from the cutoff: they recreate the marks of the units above them that the
      // cutoff falls in, but not those of the other halves that cover the kept days next to it
      await f.write(randomEvents(random, 30, Math.max(cutoff, RET_TO - 2 * DAY), RET_TO), 13);
      await f.builder().runOnce();
      expect(await buildableDirty()).toEqual([]);
      let compared = await compareRandomQueries(
        `cutoff ${at}, late writes`,
        RET_FROM - DAY,
        RET_TO + DAY,
        RETENTION_QUERIES,
        WHOLE_WINDOW,
        RETENTION_QUERIES / 4,
      );

      await new RollupRebuild(f.marks, { rawRetentionDays: 10, maxDays: 400 }).rebuild(
        new Date(cutoff),
        new Date(RET_TO - DAY),
        now,
      );
      await f.builder().runOnce();
      expect(await buildableDirty()).toEqual([]);
      compared += await compareRandomQueries(
        `cutoff ${at}, rebuilt`,
        RET_FROM - DAY,
        RET_TO + DAY,
        RETENTION_QUERIES,
        WHOLE_WINDOW,
        RETENTION_QUERIES / 4,
      );
      expect(compared).toBe(2 * RETENTION_QUERIES);
    },
    300_000,
  );
});
