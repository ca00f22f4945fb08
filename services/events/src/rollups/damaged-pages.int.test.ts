import { UnavailableError, errorBody } from '@cm/platform';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { ReportService } from '../reporting/http/report-service';
import { PlannedCountSource } from '../reporting/read/planned-count-source';
import { LostCellsError } from '../reporting/read/lost-spans';
import { bucketName } from '../storage/bucket-naming';
import { DAY_MS, HOUR_MS } from '../storage/time-units';
import { damagePages, type Damage } from '../../test/support/damage-pages';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { BrokenUnits } from './broken-units';
import { markFromDocument, type MarkDocument } from './mark-document';
import { isBuilt as isBuiltMark } from './unit-mark';
import { LEVEL_NAMES, unitAt, unitEnd, unitId, unitsContaining, type UnitRef } from './rollup-units';

// A rollup page that does not decode (cut short, a wrong leading byte, noise, a document of
// another format) is contained: reports answer its span from smaller units or raw events and the
// unit is reset once (counted, logged) to be rebuilt; the builder resets a damaged child and
// builds the parent after it; a damaged page whose raw events are past retention leaves only its
// owner out, whose reports of that span are refused (503) rather than short.
const FROM = Date.parse('2026-10-20T00:00:00Z');
const TO = FROM + 2 * DAY_MS;
const [DAMAGED_OWNER, OTHER_OWNER] = OWNERS as [string, string];
const HOUR: UnitRef = { level: 0, start: FROM + 5 * HOUR_MS };
const FOUR_HOURS: UnitRef = { level: 2, start: FROM + 4 * HOUR_MS };
const DAY: UnitRef = { level: 4, start: FROM };
const BLOCK_32D = unitsContaining(FROM).find((u) => u.level === 9)!;
const caller: ApiKeyPrincipal = { id: 'damaged', ownerIds: new Set(OWNERS) };
/** What the report asks for: counts, distinct visitors, a percentile, reach and frequency (by url: the pages family). */
const METRICS: Array<Record<string, unknown>> = [
  { metrics: 'count' },
  { metrics: 'count,uniques', group_by: 'url' },
  { metrics: 'engaged_ms_p90,count' },
  { metrics: 'frequency', group_by: 'url' },
];

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** A report service with its own BrokenUnits, whose resets and log lines the test reads. */
function observed(rawRetentionDays?: number) {
  const resets: string[] = [];
  const lines: string[] = [];
  const usedUnits: string[] = [];
  const logger = { warn: (msg: string, meta: unknown) => lines.push(`${msg} ${JSON.stringify(meta)}`) } as never;
  const broken = new BrokenUnits(
    f.marks.collection,
    f.cells,
    logger,
    (level, by, reason) => resets.push(`${level}/${by}/${reason}`),
    { rawRetentionDays },
  );
  const source = new PlannedCountSource(f.db, {
    prefix: PREFIX,
    maxRangeDays: 400,
    concurrency: 4,
    queryTimeoutMs: 600_000,
    rawRetentionDays,
    onPlan: (plan) => usedUnits.push(...plan.rollup.map((s) => unitId(s.unit))),
    rollups: { marks: f.marks, cells: f.cells, broken },
  });
  const service = new ReportService(source, {
    maxRangeDays: 400,
    deadlineMs: 600_000,
    maxGroups: 100_000,
    maxRankedGroups: 1_000_000,
  });
  return { broken, resets, lines, usedUnits, report: (body: Record<string, unknown>) => service.report(caller, body) };
}

function over(unit: UnitRef, owner: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    owner_id: owner,
    created__gte: new Date(unit.start).toISOString(),
    created__lte: new Date(unitEnd(unit) - 1).toISOString(),
    ...extra,
  };
}

/** Whether a stored mark is built for its marks. */
function isBuilt(doc: MarkDocument): boolean {
  return isBuiltMark(markFromDocument(doc));
}

async function markOf(unit: UnitRef): Promise<MarkDocument> {
  return (await f.marks.collection.findOne({ _id: unitId(unit) }))!;
}

async function writeAndBuild(seed: number): Promise<void> {
  await f.write(randomEvents(prng(seed), 500, FROM, TO));
  for (let pass = 0; pass < 2; pass++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
}

/** The log lines name the unit and the owner, never a stored value (urls, metadata, the decoder's message). */
function expectLoggedOnce(lines: readonly string[], unit: UnitRef): void {
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(unitId(unit));
  expect(lines[0]).toContain(DAMAGED_OWNER);
  for (const stored of ['example', 'spring', 'autumn', 'stored ']) expect(lines[0]).not.toContain(stored);
}

describe.each([
  ['an hour', 'n', 'truncated', HOUR],
  ['4 hours', 'q', 'random', FOUR_HOURS],
  ['a day', 'u', 'version', DAY],
  ['a 32-day block', 'k', 'foreign', BLOCK_32D],
] as Array<[string, string, Damage, UnitRef]>)(
  'a damaged page in %s (column %s, %s)',
  (_label, column, damage, unit) => {
    test("when the owner's pages of a built unit do not decode, then its reports equal raw events, the unit is reset once (counted, logged) and rebuilt, and the other owner is unaffected", async () => {
      await writeAndBuild(301 + unit.level);
      const built = await markOf(unit);
      expect(isBuilt(built)).toBe(true);
      const damaged = await damagePages(f.cells, { g: built.b!.g, owner: DAMAGED_OWNER }, column, damage, prng(7));
      expect(damaged.length).toBeGreaterThan(0);

      const seen = observed();
      for (const extra of METRICS) {
        const body = over(unit, DAMAGED_OWNER, extra);
        const raw = await f.raw.report(caller, body);
        // two reports at once meet the damage: one reset, counted and logged once
        const answers = await Promise.all([seen.report(body), seen.report(body)]);
        for (const rows of answers) expect(rows).toEqual(raw);
        const other = over(unit, OTHER_OWNER, extra);
        expect(await seen.report(other)).toEqual(await f.raw.report(caller, other));
      }
      expect(seen.resets).toEqual([`${LEVEL_NAMES[unit.level]}/report/damaged`]);
      expectLoggedOnce(seen.lines, unit);
      expect(isBuilt(await markOf(unit))).toBe(false);
      expect(await f.cells.collection.countDocuments({ g: built.b!.g })).toBe(0);

      // the builder computes it again; reports use it and still equal raw events
      for (let pass = 0; pass < 2; pass++) await f.builder().runOnce();
      const rebuilt = await markOf(unit);
      expect(isBuilt(rebuilt)).toBe(true);
      expect(rebuilt.b!.g).not.toBe(built.b!.g);
      expect(rebuilt.b!.lost).toBeUndefined();
      const used = seen.usedUnits.length;
      for (const extra of METRICS)
        for (const owner of OWNERS)
          expect(await seen.report(over(unit, owner, extra))).toEqual(
            await f.raw.report(caller, over(unit, owner, extra)),
          );
      expect(seen.usedUnits.slice(used)).toContain(unitId(unit));
      expect(seen.resets).toHaveLength(1);
    }, 120_000);
  },
);

test("when the smaller units under a damaged unit are damaged too, then the owner's reports are answered from raw events, each unit reset once", async () => {
  await writeAndBuild(306);
  // the day and every 4-hour block and hour in it with a written mark: the owner's pages all damaged
  const units = (await f.marks.collection.find({}).toArray()).filter(
    (m) => isBuilt(m) && m.l <= DAY.level && m.t >= DAY.start && m.t < unitEnd(DAY),
  );
  const random = prng(12);
  const holding: MarkDocument[] = [];
  for (const mark of units)
    if ((await damagePages(f.cells, { g: mark.b!.g, owner: DAMAGED_OWNER }, 'k', 'truncated', random)).length > 0)
      holding.push(mark);
  expect(holding.length).toBeGreaterThan(7);

  const seen = observed();
  for (const extra of METRICS) {
    const body = over(DAY, DAMAGED_OWNER, extra);
    expect(await seen.report(body)).toEqual(await f.raw.report(caller, body));
  }
  // each damaged unit with a page of the owner reset once, found level by level
  expect(new Set(seen.resets)).toEqual(new Set(['1d/report/damaged', '4h/report/damaged', '1h/report/damaged']));
  expect(seen.resets.length).toBe(seen.lines.length);
  expect(seen.resets).toHaveLength(holding.length);
  for (const mark of holding) expect((await markOf({ level: mark.l, start: mark.t })).b?.g).not.toBe(mark.b!.g);
}, 120_000);

test('when a child merged into a parent has a page that does not decode, then the builder resets the child (counted, logged once), rebuilds it and builds the parent after it, equal to raw events', async () => {
  await writeAndBuild(311);
  const child = await markOf(DAY);
  await damagePages(f.cells, { g: child.b!.g, owner: DAMAGED_OWNER }, 'u', 'version', prng(8));
  const parent: UnitRef = unitAt(6, FROM);
  await f.marks.collection.updateOne({ _id: unitId(parent) }, { $set: { dirty: true } });

  const seen = observed();
  const first = await f.builder({ broken: seen.broken }).runOnce();
  // the parent did not fail: it waits for its child, every other unit went on
  expect(first.failed).toEqual([]);
  expect(seen.resets).toEqual(['1d/builder/damaged']);
  expectLoggedOnce(seen.lines, DAY);
  for (let pass = 0; pass < 2; pass++) await f.builder({ broken: seen.broken }).runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  expect((await markOf(DAY)).b!.g).not.toBe(child.b!.g);
  const built = await markOf(parent);
  expect(isBuilt(built)).toBe(true);
  expect(built.b!.lost).toBeUndefined();
  for (const extra of METRICS)
    for (const owner of OWNERS)
      expect(await seen.report(over(parent, owner, extra))).toEqual(
        await f.raw.report(caller, over(parent, owner, extra)),
      );
  expect(seen.usedUnits).toContain(unitId(parent));
  expect(seen.resets).toHaveLength(1);
}, 120_000);

describe('past raw retention', () => {
  const RAW_RETENTION_DAYS = 1;

  /** Builds everything, keeps the raw answers of these reports, then drops the raw events (retention). */
  async function buildAndExpire(bodies: ReadonlyArray<Record<string, unknown>>): Promise<Map<string, unknown>> {
    await writeAndBuild(321);
    const answers = new Map<string, unknown>();
    for (const body of bodies) answers.set(JSON.stringify(body), await f.raw.report(caller, body));
    for (let day = FROM; day < TO; day += DAY_MS) await f.db.collection(bucketName(PREFIX, new Date(day))).drop();
    return answers;
  }

  async function expectLost(report: Promise<unknown>, unit: UnitRef): Promise<void> {
    const err = await report.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LostCellsError);
    expect(err).toBeInstanceOf(UnavailableError);
    const { status } = err as UnavailableError;
    expect(status).toBe(503);
    expect(errorBody(err as UnavailableError).error.message).toContain(unitId(unit));
  }

  test("when a report meets a damaged page whose raw events are past retention, then that owner's report of the span is refused (503 naming the unit), the owner is left out of the unit once (counted, logged), and every other report is answered", async () => {
    const bodies = [
      ...METRICS.map((m) => over(HOUR, OTHER_OWNER, m)),
      ...METRICS.map((m) => over(DAY, DAMAGED_OWNER, m)),
    ];
    const answers = await buildAndExpire(bodies);
    const hour = await markOf(HOUR);
    await damagePages(f.cells, { g: hour.b!.g, owner: DAMAGED_OWNER }, 'n', 'truncated', prng(9));

    const seen = observed(RAW_RETENTION_DAYS);
    await expectLost(seen.report(over(HOUR, DAMAGED_OWNER, { metrics: 'count' })), HOUR);
    expect(seen.resets).toEqual(['1h/report/lost']);
    expectLoggedOnce(seen.lines, HOUR);
    // the unit stays for every other owner: built, the same generation, this owner listed lost
    const after = await markOf(HOUR);
    expect(isBuilt(after)).toBe(true);
    expect(after.b).toMatchObject({ g: hour.b!.g, lost: [DAMAGED_OWNER] });

    // the same owner again: refused without reading the page, nothing counted again
    for (const m of METRICS) await expectLost(seen.report(over(HOUR, DAMAGED_OWNER, m)), HOUR);
    expect(seen.resets).toHaveLength(1);
    // the other owner reads the unit; the damaged owner's day is the day unit, built before the damage
    for (const body of bodies) expect(await seen.report(body)).toEqual(answers.get(JSON.stringify(body)));
    expect(seen.usedUnits).toContain(unitId(HOUR));
    expect(seen.usedUnits).toContain(unitId(DAY));
  }, 120_000);

  test("when the builder merges a child whose damaged page is past raw retention, then the owner is left out of the parents (not the child's other owners), whose reports use them, and that owner's reports of the span are refused", async () => {
    const parents = unitsContaining(HOUR.start).filter((u) => u.level > 0);
    const nextDay = { level: 4, start: FROM + DAY_MS };
    // days of the 32-day block nobody wrote to: no event is lost there, whatever units lack
    expect(BLOCK_32D.start).toBeLessThan(FROM);
    const unwritten = {
      owner_id: DAMAGED_OWNER,
      created__gte: new Date(BLOCK_32D.start).toISOString(),
      created__lte: new Date(FROM - 1).toISOString(),
      metrics: 'count,uniques',
    };
    const bodies = [
      ...parents.flatMap((u) => METRICS.map((m) => over(u, OTHER_OWNER, m))),
      ...METRICS.map((m) => over(nextDay, DAMAGED_OWNER, m)),
      unwritten,
    ];
    const answers = await buildAndExpire(bodies);
    const hour = await markOf(HOUR);
    await damagePages(f.cells, { g: hour.b!.g, owner: DAMAGED_OWNER }, 'u', 'random', prng(10));
    // every unit above the hour is to be built again (rebuilt past raw retention: only from its children)
    await f.marks.collection.updateMany({ _id: { $in: parents.map(unitId) } }, { $set: { dirty: true } });

    const seen = observed(RAW_RETENTION_DAYS);
    const pass = await f.builder({ broken: seen.broken, rawRetentionDays: RAW_RETENTION_DAYS }).runOnce();
    expect(pass.failed).toEqual([]);
    expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
    expect(seen.resets).toEqual(['1h/builder/lost']);
    expectLoggedOnce(seen.lines, HOUR);
    expect((await markOf(HOUR)).b).toMatchObject({ g: hour.b!.g, lost: [DAMAGED_OWNER] });
    for (const parent of parents) {
      const mark = await markOf(parent);
      expect(isBuilt(mark)).toBe(true);
      expect(mark.b!.lost).toEqual([DAMAGED_OWNER]);
    }

    // every other owner's reports use the parents and equal what raw events said
    for (const body of bodies) expect(await seen.report(body)).toEqual(answers.get(JSON.stringify(body)));
    for (const parent of parents) expect(seen.usedUnits).toContain(unitId(parent));
    // the damaged owner's reports of any span holding the hour are refused, naming the hour
    for (const parent of parents)
      await expectLost(seen.report(over(parent, DAMAGED_OWNER, { metrics: 'count,uniques' })), HOUR);
    expect(seen.resets).toHaveLength(1);
  }, 120_000);
});
