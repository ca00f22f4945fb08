import { bucketName } from '../storage/bucket-naming';
import { DAY_MS } from '../storage/time-units';
import {
  OWNERS,
  PREFIX,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { writeOldFormatDay } from '../../test/support/old-format-day';
import { familyById } from './families';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';
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

  const g = await writeOldFormatDay(f, events, {
    day: OLD_DAY,
    families: ['t', 'p', 'g', 'a'].map((id) => familyById(id)!),
    pageFormat: 3,
    manifestFormat: 2,
  });
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
