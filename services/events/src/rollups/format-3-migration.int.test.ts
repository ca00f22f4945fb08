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
import { familyPages, writeOldFormatDay } from '../../test/support/old-format-day';
import { FAMILIES } from './families';
import { PAGE_FORMAT } from './page-layout';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';
import { unitId } from './rollup-units';

// Pages of format 3 stored each visitor sample with its hashes; format 4 leaves out those of an
// exact sample, which its entry's visitor set holds. Format 3 is still read as it is: reports use
// such units right away, and the builder converts every one at its first pass, whether its raw
// events are kept or not, each answering after what it answered before.
const OLD_DAY = Date.parse('2026-09-01T00:00:00Z');
const caller = { id: 'format-3', ownerIds: new Set(OWNERS) };

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** The bytes of the visitor samples of a generation's pages. */
async function sampleBytes(g: string): Promise<number> {
  const docs = await f.db.collection('rollup_cells').find({ g, f: 'p' }).toArray();
  return docs.reduce((n, d) => n + (d.r as { position: number }).position, 0);
}

test.each([
  ['past the raw retention', 10],
  ['within the raw retention', 100_000],
])(
  'when a format-3 unit is %s, then reports read it as it is, and the builder converts it to the same answers in fewer bytes',
  async (_when, rawRetentionDays) => {
    const events = randomEvents(prng(2027), 600, OLD_DAY, OLD_DAY + DAY_MS);
    // the day's raw events, read once by the raw-only service for the expected answers, then gone
    const bucket = f.db.collection(bucketName(PREFIX, new Date(OLD_DAY)));
    await bucket.insertMany(events.map((e) => ({ ...e })) as never[]);
    const range = { created__gte: '2026-09-01', created__lte: '2026-09-01' };
    const bodies = OWNERS.slice(0, 2).flatMap((owner_id) => [
      { owner_id, ...range, metrics: 'count,uniques' },
      { owner_id, ...range, group_by: 'url', metrics: 'count,uniques,frequency' },
      { owner_id, ...range, metrics: 'frequency,engaged_ms_p90' },
      { owner_id, ...range, group_by: 'utm_campaign', metrics: 'count,uniques,engaged_ms_p90' },
      { owner_id, ...range, group_by: 'url', metadata: 'campaign', metrics: 'count,value_sum' },
      { owner_id, ...range, group_by: 'country', device_type: 'mobile' },
    ]);
    const expected = [];
    for (const body of bodies) expected.push(await f.raw.report(caller, body));
    expect(expected.flat().length).toBeGreaterThan(50);
    await bucket.drop();

    const g = await writeOldFormatDay(f, events, {
      day: OLD_DAY,
      families: FAMILIES,
      pageFormat: 3,
      manifestFormat: 3,
    });
    // before the builder ran: the format-3 cells answer (the raw events are gone)
    const used = f.usage.rollupUnits;
    for (const [i, body] of bodies.entries())
      expect([i, await f.rolled.report(caller, body)]).toEqual([i, expected[i]]);
    expect(f.usage.rollupUnits).toBeGreaterThan(used);

    await f.builder({ rawRetentionDays }).runOnce();
    const mark = (await f.marks.collection.findOne({ _id: unitId({ level: 4, start: OLD_DAY }) }))!;
    expect(isBuilt(markFromDocument(mark))).toBe(true);
    expect(mark.b!.g).not.toBe(g);
    const head = await f.db.collection('rollup_cells_manifests').findOne({ _id: mark.b!.g as never });
    expect(head?.v).toBe(PAGE_FORMAT);
    expect(await f.db.collection('rollup_cells').countDocuments({ g })).toBe(0);
    expect(await sampleBytes(mark.b!.g)).toBeLessThan(0.6 * sampleBytesOfFormat3(events));
    for (const [i, body] of bodies.entries())
      expect([i, await f.rolled.report(caller, body)]).toEqual([i, expected[i]]);
  },
  120_000,
);

/** The same pages' sample bytes in format 3, written aside (never stored). */
function sampleBytesOfFormat3(events: readonly EventDocument[]): number {
  const family = FAMILIES.find((x) => x.id === 'p')!;
  return OWNERS.flatMap((owner) => familyPages('x', owner, family, events, 3)).reduce(
    (n, p) => n + (p.r as { position: number }).position,
    0,
  );
}
