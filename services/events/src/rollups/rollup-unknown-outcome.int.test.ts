import { MongoNetworkError, type Collection, type Document, type Filter, type UpdateFilter } from 'mongodb';
import { expectRandomReportsEqualRaw, bothAnswers } from '../../test/support/compare-reports';
import {
  BUILDER_DEFAULTS,
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { markFromDocument, type MarkDocument } from './mark-document';
import { isBuilt } from './unit-mark';
import { RollupBuilder } from './rollup-builder';
import { FAMILIES } from './families';
import { writePages } from './page-writer';
import { BrokenUnits } from './broken-units';
import { PlannedCountSource } from '../reporting/read/planned-count-source';
import { ReportService } from '../reporting/http/report-service';
import { DAY_MS } from '../storage/time-units';
import { unitAt, unitId, type UnitRef } from './rollup-units';

// Writes whose outcome is unknown: the database applied the publishing compare-and-set but its
// answer never came back (a connection dropped, a driver timeout during a long pause), or the
// update reached the server only after the builder had given up. Either way the builder must not
// take the error for a failed build and drop cells a mark may point at, and a report over the
// unit's span must equal the raw-only answer.
const FROM = Date.parse('2026-10-20T00:00:00Z');
const TO = Date.parse('2026-10-22T00:00:00Z');
const DAY: UnitRef = { level: 4, start: FROM };

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** Whether an update is a publish (UnitCommit sets the built snapshot `b`), and of which unit. */
function publishOf(filter: Filter<MarkDocument>, update: UpdateFilter<MarkDocument> | Document): string | undefined {
  const set = (update as { $set?: Record<string, unknown> }).$set;
  return set && 'b' in set ? String((filter as { _id?: unknown })._id) : undefined;
}

type Fault = (unit: string, apply: () => Promise<unknown>) => Promise<unknown> | 'pass-through';

/** The marks collection seen through a fault on the publishes: what a flaky connection makes of them. */
function faultyMarks(marks: Collection<MarkDocument>, fault: Fault): Collection<MarkDocument> {
  return new Proxy(marks, {
    get(target, prop, receiver) {
      if (prop !== 'updateOne') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (filter: Filter<MarkDocument>, update: UpdateFilter<MarkDocument>, options?: Document) => {
        const apply = () => target.updateOne(filter, update, options);
        const unit = publishOf(filter, update);
        if (unit === undefined) return apply();
        const outcome = fault(unit, apply);
        return outcome === 'pass-through' ? apply() : outcome;
      };
    },
  });
}

function builderWith(fault: Fault): RollupBuilder {
  const marks = Object.create(f.marks) as typeof f.marks;
  Object.defineProperty(marks, 'collection', { value: faultyMarks(f.marks.collection, fault) });
  return new RollupBuilder(f.db, marks, f.cells, BUILDER_DEFAULTS);
}

const lost = () => new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed (answer lost by the test)');

async function expectSpanEqualsRaw(owner: string): Promise<void> {
  const body = {
    owner_id: owner,
    created__gte: new Date(FROM).toISOString(),
    created__lte: new Date(TO - 1).toISOString(),
    metrics: 'count,uniques',
    group_by: 'url',
  };
  const { rolled, raw } = await bothAnswers(f, body);
  expect(rolled).toEqual(raw);
}

/** Every built mark points at a generation whose manifest exists. */
async function expectNoBuiltMarkWithoutCells(): Promise<void> {
  const built = (await f.marks.collection.find({}).toArray()).filter((m) => isBuilt(markFromDocument(m)));
  const manifests = new Set(
    (
      await f.db
        .collection('rollup_cells_manifests')
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((m) => String(m._id)),
  );
  expect(built.filter((m) => !manifests.has(m.b!.g)).map((m) => m._id)).toEqual([]);
}

describe.each([
  ['an hour', { level: 0, start: FROM + 5 * 3_600_000 }],
  ['a 4-hour block', { level: 2, start: FROM + 8 * 3_600_000 }],
  ['a day', DAY],
  ['a 4-day block', { level: 6, start: Math.floor(FROM / (4 * DAY_MS)) * 4 * DAY_MS }],
] as Array<[string, UnitRef]>)('publishing %s', (_label, target) => {
  test('when the publish is applied but its answer is lost, then the unit stays built with its cells and reports equal raw events', async () => {
    const random = prng(231 + target.level);
    await f.write(randomEvents(random, 400, FROM, TO));
    const id = unitId(target);
    let faults = 0;
    const builder = builderWith((unit, apply) => {
      if (unit !== id) return 'pass-through';
      faults++;
      return apply().then(() => Promise.reject(lost()));
    });
    for (let pass = 0; pass < 3; pass++) await builder.runOnce();
    expect(faults).toBeGreaterThan(0);

    expect(isBuilt(markFromDocument((await f.marks.collection.findOne({ _id: id }))!))).toBe(true);
    expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
    await expectNoBuiltMarkWithoutCells();
    for (const owner of OWNERS) await expectSpanEqualsRaw(owner);
    const used = f.usage.rollupUnits;
    expect(await expectRandomReportsEqualRaw(f, random, FROM, TO, 40)).toBeGreaterThan(0);
    expect(f.usage.rollupUnits).toBeGreaterThan(used);
  }, 120_000);
});

test('when a publish reaches the database only after the builder gave up, then no mark points at dropped cells and reports equal raw events', async () => {
  const random = prng(232);
  await f.write(randomEvents(random, 400, FROM, TO));
  const day = unitId(DAY);
  let late: (() => Promise<unknown>) | undefined;
  const builder = builderWith((unit, apply) => {
    if (unit !== day || late) return 'pass-through';
    // the update is on its way (the server is paused): the client gives up first
    late = apply;
    return Promise.reject(lost());
  });
  // the late update lands at the first thing the builder does after the error: its clean-up
  const drop = f.cells.dropGenerations.bind(f.cells);
  f.cells.dropGenerations = async (gens) => {
    const landing = late;
    late = async () => undefined;
    await landing?.();
    return drop(gens);
  };
  const pull = f.marks.collection.updateOne.bind(f.marks.collection);
  f.marks.collection.updateOne = (async (filter: Filter<MarkDocument>, update: UpdateFilter<MarkDocument>) => {
    if ('$pull' in update && !('$set' in update) && late) {
      const landing = late;
      late = async () => undefined;
      await landing();
    }
    return pull(filter, update);
  }) as typeof f.marks.collection.updateOne;

  await builder.runOnce();
  expect(late).toBeDefined();
  await expectNoBuiltMarkWithoutCells();
  for (const owner of OWNERS) await expectSpanEqualsRaw(owner);
  // the builder's next passes finish the job: nothing stays dirty, everything built has its cells
  for (let pass = 0; pass < 3; pass++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  await expectNoBuiltMarkWithoutCells();
  expect(await expectRandomReportsEqualRaw(f, random, FROM, TO, 60)).toBeGreaterThan(0);
}, 120_000);

/** Builds everything, then drops the cells of the built day of FROM as the lost-answer defect did; returns its mark. */
async function breakBuiltDay(random: () => number): Promise<MarkDocument> {
  await f.write(randomEvents(random, 400, FROM - 2 * DAY_MS, TO));
  for (let pass = 0; pass < 2; pass++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  const broken = (await f.marks.collection.findOne({ _id: unitId(DAY) }))!;
  expect(isBuilt(markFromDocument(broken))).toBe(true);
  await f.cells.dropGenerations([broken.b!.g]);
  return broken;
}

test('when a built mark points at a generation whose cells are gone, then reports equal raw events and the unit is reset for rebuilding', async () => {
  const random = prng(233);
  const broken = await breakBuiltDay(random);
  for (const owner of OWNERS) await expectSpanEqualsRaw(owner);
  expect(await expectRandomReportsEqualRaw(f, random, FROM - 2 * DAY_MS, TO, 60)).toBeGreaterThan(0);
  const reset = (await f.marks.collection.findOne({ _id: unitId(DAY) }))!;
  expect(isBuilt(markFromDocument(reset))).toBe(false);
  expect(reset.dirty).toBe(true);

  for (let pass = 0; pass < 4; pass++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  await expectNoBuiltMarkWithoutCells();
  expect((await f.marks.collection.findOne({ _id: unitId(DAY) }))!.b!.g).not.toBe(broken.b!.g);
  const used = f.usage.rollupUnits;
  for (const owner of OWNERS) await expectSpanEqualsRaw(owner);
  expect(f.usage.rollupUnits).toBeGreaterThan(used);
}, 120_000);

test('when a parent is built from a child whose cells are gone, then the child is reset and rebuilt and the parent built after it', async () => {
  const random = prng(234);
  const broken = await breakBuiltDay(random);
  const parent = unitId(unitAt(6, FROM));
  await f.marks.collection.updateOne({ _id: parent }, { $set: { dirty: true } });

  for (let pass = 0; pass < 4; pass++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  await expectNoBuiltMarkWithoutCells();
  expect((await f.marks.collection.findOne({ _id: unitId(DAY) }))!.b!.g).not.toBe(broken.b!.g);
  expect(isBuilt(markFromDocument((await f.marks.collection.findOne({ _id: parent }))!))).toBe(true);
  for (const owner of OWNERS) await expectSpanEqualsRaw(owner);
}, 120_000);

test('when a page of a built unit is gone, then reports equal raw events and the unit is reset once, counted and logged', async () => {
  const random = prng(235);
  await f.write(randomEvents(random, 400, FROM, TO));
  for (let pass = 0; pass < 2; pass++) await f.builder().runOnce();
  const mark = (await f.marks.collection.findOne({ _id: unitId(DAY) }))!;
  // the owner's page of the pages family (content_id, url) goes; its other families' pages stay
  const deleted = await f.cells.collection.deleteOne({ g: mark.b!.g, f: 'p', p: 0, o: OWNERS[0] });
  expect(deleted.deletedCount).toBe(1);

  const resets: string[] = [];
  const lines: string[] = [];
  const logger = { warn: (msg: string, meta: unknown) => lines.push(`${msg} ${JSON.stringify(meta)}`) };
  const broken = new BrokenUnits(f.marks.collection, f.cells, logger as never, (level, by) =>
    resets.push(`${level}/${by}`),
  );
  const source = new PlannedCountSource(f.db, {
    prefix: PREFIX,
    maxRangeDays: 400,
    concurrency: 4,
    queryTimeoutMs: 600_000,
    rollups: { marks: f.marks, cells: f.cells, broken },
  });
  const service = new ReportService(source, {
    maxRangeDays: 400,
    deadlineMs: 600_000,
    maxGroups: 100_000,
    maxRankedGroups: 1_000_000,
  });
  const body = {
    owner_id: OWNERS[0],
    created__gte: new Date(FROM).toISOString(),
    // the day itself: the unit the report reads
    created__lte: new Date(FROM + DAY_MS - 1).toISOString(),
    group_by: 'url',
  };
  const caller = { id: 'broken', ownerIds: new Set(OWNERS) };
  const raw = await f.raw.report(caller, body);
  // two reports at once find it: it is reset, counted and logged once
  const answers = await Promise.all([service.report(caller, body), service.report(caller, body)]);
  for (const rows of answers) expect(rows).toEqual(raw);
  expect(resets).toEqual(['1d/report']);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(unitId(DAY));
  expect(isBuilt(markFromDocument((await f.marks.collection.findOne({ _id: unitId(DAY) }))!))).toBe(false);
  // what was left of the generation went with the reset
  expect(await f.cells.collection.countDocuments({ g: mark.b!.g })).toBe(0);
}, 120_000);

test('when a generation no mark points at is left behind, then the orphan sweep drops it once it is older than the abandon time, and nothing current', async () => {
  const random = prng(236);
  await f.write(randomEvents(random, 200, FROM, TO));
  await f.builder().runOnce();
  const cellsBefore = await f.cells.collection.countDocuments({});
  // a generation whose reservation was removed but whose cells stayed (a clean-up with an unknown outcome)
  const reservedAt = new Date(Date.now() - 3_600_000);
  const orphan = `${unitId(DAY)}@${reservedAt.getTime().toString(36)}-abcdef012345`;
  await f.cells.insert(orphan, writePages(orphan, OWNERS[0]!, FAMILIES[0]!, []));
  const young = await f.builder({ abandonMs: 2 * 3_600_000 }).runOnce();
  expect(young.orphans).toBe(0);
  const sweep = await f.builder({ abandonMs: 60_000 }).runOnce();
  expect(sweep.orphans).toBe(1);
  expect(await f.cells.collection.countDocuments({})).toBe(cellsBefore);
  await expectNoBuiltMarkWithoutCells();
  expect(await expectRandomReportsEqualRaw(f, random, FROM, TO, 20)).toBeGreaterThan(0);
}, 120_000);
