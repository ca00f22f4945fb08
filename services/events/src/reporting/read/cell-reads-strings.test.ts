import { emptyCellValue } from '../../metrics/registry';
import type { CellStore } from '../../rollups/cell-store';
import { FamilyTable } from '../../rollups/cell-table';
import { familyById } from '../../rollups/families';
import type { CellPageDocument } from '../../rollups/page-layout';
import { writePages } from '../../rollups/page-writer';
import { unitId } from '../../rollups/rollup-units';
import type { RollupStep } from '../plan/plan-report';
import { parseReportRequest } from '../request/parse-report-request';
import { readCells } from './cell-reads';
import { PageCache } from './page-cache';
import { readPlanOf } from './read-plan';
import { ReportBudget } from './report-budget';
import { ReportGroups } from './report-groups';
import { toReportRows } from './report-rows';
import { SharedStringIds, StringIds } from './string-ids';

// Reports over the same cached pages through the process's string table, through another table
// (the shared one replaced between reports), and back: every answer the events' own.
const OWNER = '7001';
const DAY = 86_400_000;
const FIRST = Date.UTC(2026, 0, 5);
const DAY_LEVEL = 4;
const family = familyById('p')!;
const steps: RollupStep[] = [0, 1].map((d) => {
  const unit = { level: DAY_LEVEL, start: FIRST + d * DAY };
  return { unit, g: `${unitId(unit)}@g1` };
});

/** Entry v of day d: a content id and a url as browsers send them (tags, click ids, fragments); most on both days. */
function keysOf(v: number, d: number): [string, string] {
  return [`c${v % 4}`, `https://shop.example/p/${(v + d * (v % 2)) % 9}?utm_source=news&gclid=${v % 2}#top`];
}

/** Both days' pages, and the count each (name, content id, url) should have. */
function pagesAndCounts(): { docs: Map<string, CellPageDocument>; expected: Map<string, number> } {
  const docs = new Map<string, CellPageDocument>();
  const expected = new Map<string, number>();
  steps.forEach((step, d) => {
    const table = new FamilyTable(family, 100_000);
    for (let v = 0; v < 60; v++) {
      const name = v % 5 === 0 ? 'click' : 'impression';
      const value = emptyCellValue();
      value.count[v % 3] = 1;
      const keys = keysOf(v, d);
      table.add(name, keys, value);
      const key = [name, ...keys].join(' ');
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    for (const doc of writePages(step.g, OWNER, family, table.sorted())) docs.set(doc._id, doc);
  });
  return { docs, expected };
}

describe('readCells through the string table', () => {
  const { docs, expected } = pagesAndCounts();
  const store = {
    usablePages: async (ids: readonly string[]) => ({
      docs: ids.map((id) => docs.get(id)).filter((d) => d !== undefined),
      missing: [],
      legacy: [],
    }),
    existing: async (ids: readonly string[]) => ids,
  } as unknown as CellStore;
  // each test's pages decoded and cached afresh: the numbers a page keeps come from its own reports
  let cache: PageCache;
  beforeEach(() => {
    cache = new PageCache(64 * 1024 * 1024);
  });
  const day = (n: number) => new Date(FIRST + n * DAY).toISOString().slice(0, 10);
  const body = (groupBy: string) => ({
    owner_id: OWNER,
    created__gte: `${day(0)} 00:00:00`,
    created__lte: `${day(1)} 23:59:59`,
    group_by: groupBy,
  });

  async function report(groupBy: string, table: StringIds, days = steps): Promise<Map<string, number>> {
    const plan = readPlanOf(parseReportRequest(body(groupBy), { maxRangeDays: 400 }));
    const groups = new ReportGroups(plan.aggregates, Infinity, false, Infinity, plan.ask, table);
    const budget = new ReportBudget(undefined, { deadlineMs: 60_000, perQueryMs: 60_000 });
    await readCells(plan, days, groups, budget, store, cache);
    const rows = toReportRows(groups.groups(), plan);
    const byKey = new Map(
      rows.map((r) => [[r.name, r.content_id, r.url].filter((x) => x !== undefined).join(' '), r.value!]),
    );
    // one row a group: the same strings never make two groups
    expect(byKey.size).toBe(rows.length);
    return byKey;
  }

  it('when reports share the table, or the table is replaced between them, then each answers the events, the pages cached', async () => {
    const shared = new SharedStringIds();
    const first = shared.forReport();
    const other = new StringIds();
    other.id('a string the first table does not have, so the numbers differ');

    // a report by content id first: the pages' urls are numbered only when a report groups by them
    const byContent = await report('content_id', first);
    const contentCounts = new Map<string, number>();
    for (const [key, n] of expected) {
      const [name, content] = key.split(' ');
      contentCounts.set(`${name} ${content}`, (contentCounts.get(`${name} ${content}`) ?? 0) + n);
    }
    expect(byContent).toEqual(contentCounts);

    for (const table of [first, first, other, first, other])
      expect(await report('content_id,url', table)).toEqual(expected);
    expect(await report('content_id', other)).toEqual(contentCounts);
  });

  it("when one report's pages were last numbered through different tables, then it numbers them all in its own", async () => {
    const one = new StringIds();
    const two = new StringIds();
    for (let i = 0; i < 7; i++) two.id(`padding ${i}: the tables number the same strings differently`);
    // each day's page last met through another table
    await report('content_id,url', one, [steps[0]!]);
    await report('content_id,url', two, [steps[1]!]);
    expect(await report('content_id,url', one)).toEqual(expected);
    expect(await report('content_id,url', two)).toEqual(expected);
  });
});
