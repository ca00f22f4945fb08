import type { Db } from 'mongodb';
import { FAMILIES } from '../../src/rollups/families';
import { markFromDocument } from '../../src/rollups/mark-document';
import { PAGE_FORMAT } from '../../src/rollups/page-layout';
import { unitId } from '../../src/rollups/rollup-units';
import { isBuilt } from '../../src/rollups/unit-mark';
import { bucketName } from '../../src/storage/bucket-naming';
import type { EventDocument } from '../../src/storage/event-document';
import { DAY_MS } from '../../src/storage/time-units';
import { writeOldFormatDay } from './old-format-day';
import { OWNERS, PREFIX, prng, randomEvents, startRollupFixture, type RollupFixture } from './rollup-fixture';

/** A page format still read as it is and converted by the builder, and the bytes the newer one saves. */
export interface OldPageFormat {
  format: number;
  /** Those bytes of a generation's stored pages. */
  storedBytes(db: Db, g: string): Promise<number>;
  /** The same bytes of the day's pages in the old format, written aside (never stored). */
  oldBytes(events: readonly EventDocument[]): number;
  /** The most the new format stores of those bytes (0.6 unless given). */
  atMost?: number;
}

const OLD_DAY = Date.parse('2026-09-01T00:00:00Z');

/**
 * The migration of a day unit of an older page format, past and within the raw retention:
 * before the builder runs, reports read it as it is (its raw events gone) and answer what raw
 * events answered; after its first pass, the unit is of the current format, in fewer bytes, and
 * answers the same.
 */
export function testOldFormatMigration(old: OldPageFormat): void {
  const caller = { id: `format-${old.format}`, ownerIds: new Set(OWNERS) };
  let f: RollupFixture;
  beforeEach(async () => {
    f = await startRollupFixture();
  });
  afterEach(async () => {
    await f.stop();
  });

  test.each([
    ['past the raw retention', 10],
    ['within the raw retention', 100_000],
  ])(
    `when a format-${old.format} unit is %s, then reports read it as it is, and the builder converts it to the same answers in fewer bytes`,
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
        pageFormat: old.format,
        manifestFormat: old.format,
      });
      // before the builder ran: the old format's cells answer (the raw events are gone)
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
      const stored = await old.storedBytes(f.db, mark.b!.g);
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan((old.atMost ?? 0.6) * old.oldBytes(events));
      for (const [i, body] of bodies.entries())
        expect([i, await f.rolled.report(caller, body)]).toEqual([i, expected[i]]);
    },
    120_000,
  );
}
