import { AGGREGATE_NAMES, aggregateOf, emptyCellValue, type AggregateName, type CellValue } from '../metrics/registry';
import { DEVICE_ORDER, type RawEvent } from '../metrics/aggregate';
import { bucketName } from '../storage/bucket-naming';
import type { EventDocument } from '../storage/event-document';
import { DAY_MS } from '../storage/time-units';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { FamilyTable } from './cell-table';
import { familyById } from './families';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';
import { writePages } from './page-writer';
import { unitId } from './rollup-units';

// Pages of format 2 kept the attribution family `a` (six fields); this format keeps `c` (source,
// medium, campaign, referrer). A format-2 unit whose raw events are gone is converted by the
// builder at its first pass: `c` projected from `a`, the other families as they were, so every
// report that unit answered before answers the same after.
const OLD_DAY = Date.parse('2026-09-01T00:00:00Z');
const caller = { id: 'format-2', ownerIds: new Set(OWNERS) };

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** An event's cell: each aggregate's state of that event alone, on its device. */
function cellOf(event: EventDocument): CellValue {
  const value = emptyCellValue() as Record<AggregateName, unknown[]>;
  const device = DEVICE_ORDER.indexOf(event.device_type as (typeof DEVICE_ORDER)[number]);
  for (const name of AGGREGATE_NAMES) {
    const aggregate = aggregateOf(name);
    value[name][device] = aggregate.add(aggregate.empty(), event as unknown as RawEvent);
  }
  return value as CellValue;
}

/** The day unit as the release before wrote it: format-2 pages of families t, p, g and a. */
async function writeFormat2Day(events: readonly EventDocument[]): Promise<string> {
  const unit = unitId({ level: 4, start: OLD_DAY });
  const g = `${unit}@format2-0001`;
  const pages = [];
  for (const owner of OWNERS) {
    const mine = events.filter((e) => e.owner_id === owner && !e.bot);
    for (const id of ['t', 'p', 'g', 'a']) {
      const family = familyById(id)!;
      const table = new FamilyTable(family, 100_000);
      for (const e of mine)
        table.add(
          e.name,
          family.dimensions.map((d) => (e[d as keyof EventDocument] as string | undefined) ?? ''),
          cellOf(e),
        );
      if (table.size > 0) pages.push(...writePages(g, owner, family, table.sorted()));
    }
  }
  await f.db.collection('rollup_cells').insertMany(pages as never[]);
  await f.db
    .collection('rollup_cells_manifests')
    .insertOne({ _id: g, g, ids: pages.map((p) => p._id), parts: 1, v: 2 } as never);
  await f.marks.collection.updateOne(
    { _id: unit },
    { $set: { l: 4, t: OLD_DAY, s: 1, f: 1, at: new Date(OLD_DAY), dirty: false, b: { s: 1, f: 1, g } } },
    { upsert: true },
  );
  return g;
}

test('when a format-2 unit starts before the raw retention, then the builder converts it and its reports answer what the events said', async () => {
  const events = randomEvents(prng(2026), 600, OLD_DAY, OLD_DAY + DAY_MS);
  // the day's raw events, read once by the raw-only service for the expected answers, then gone
  const bucket = f.db.collection(bucketName(PREFIX, new Date(OLD_DAY)));
  await bucket.insertMany(events.map((e) => ({ ...e })) as never[]);
  const range = { created__gte: '2026-09-01', created__lte: '2026-09-01' };
  const bodies = OWNERS.slice(0, 2).flatMap((owner_id) => [
    { owner_id, ...range, metrics: 'count,uniques' },
    { owner_id, ...range, group_by: 'utm_campaign', metrics: 'count,uniques,engaged_ms_p90' },
    { owner_id, ...range, group_by: 'utm_source,utm_medium', metrics: 'uniques,value_sum,scroll_depth_gte_50' },
    { owner_id, ...range, group_by: 'referrer', utm_source: ['google', ''] },
    { owner_id, ...range, group_by: 'url', metadata: 'campaign', metrics: 'count,value_sum' },
    { owner_id, ...range, group_by: 'country', device_type: 'mobile' },
  ]);
  const expected = [];
  for (const body of bodies) expected.push(await f.raw.report(caller, body));
  expect(expected.flat().length).toBeGreaterThan(50);
  // the attribution rows differ by campaign, some by the fields family c leaves out (merged on conversion)
  expect(events.some((e) => e.utm_content !== undefined)).toBe(true);
  expect(events.some((e) => e.utm_term !== undefined)).toBe(true);
  await bucket.drop();

  const g = await writeFormat2Day(events);
  // raw retention of 10 days: the day is past it, so only converting keeps its answers
  await f.builder({ rawRetentionDays: 10 }).runOnce();
  const mark = (await f.marks.collection.findOne({ _id: unitId({ level: 4, start: OLD_DAY }) }))!;
  expect(isBuilt(markFromDocument(mark))).toBe(true);
  expect(mark.b!.g).not.toBe(g);
  expect(await f.db.collection('rollup_cells').countDocuments({ g })).toBe(0);
  expect(await f.db.collection('rollup_cells').countDocuments({ g: mark.b!.g, f: 'c' })).toBeGreaterThan(0);
  expect(await f.db.collection('rollup_cells').countDocuments({ g: mark.b!.g, f: 'a' })).toBe(0);
  for (const [i, body] of bodies.entries()) expect([i, await f.rolled.report(caller, body)]).toEqual([i, expected[i]]);
}, 120_000);
