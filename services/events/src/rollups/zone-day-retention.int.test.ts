import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';
import { compareZoned, NY, nyReports } from '../../test/support/zone-reports';
import { markFromDocument } from './mark-document';
import { RollupRetention } from './rollup-retention';
import { isBuilt } from './unit-mark';
import { ZONE_DAY_LEVEL, zoneDayStart } from './zone-days';

// Retention of zone days (ROLLUP_ZONES = New York): dropped like UTC days, and the one a cutoff
// falls inside retired. REPORT_DIFF_SEED reproduces a run.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const T = (s: string) => Date.parse(s);
const HOUR = 3_600_000;

let f: RollupFixture;
const random = prng(SEED);

beforeEach(async () => {
  f = await startRollupFixture({ zones: [NY] });
});
afterEach(async () => {
  await f.stop();
});

async function zoneMarks() {
  const docs = await f.marks.collection.find({ l: ZONE_DAY_LEVEL }).toArray();
  return docs.map(markFromDocument);
}

test('when retention drops rollups before a UTC midnight, then New York days wholly before it go, the one holding it is retired, and reports stay exact', async () => {
  const from = T('2026-02-01T00:00:00Z');
  await f.write(randomEvents(random, 400, from, from + 4 * 86_400_000));
  await f.builder().runOnce();
  const cutoff = T('2026-02-03T00:00:00Z');
  await new RollupRetention(f.marks, f.cells, [NY]).dropBefore(cutoff);
  const byStart = new Map((await zoneMarks()).map((m) => [m.start, m]));
  // Feb 1 in New York ends 2026-02-02T05:00Z: before the cutoff, gone; Feb 2 holds it: retired
  expect(byStart.has(zoneDayStart(NY, T('2026-02-01T12:00:00Z'))!)).toBe(false);
  const holding = byStart.get(zoneDayStart(NY, T('2026-02-02T12:00:00Z'))!);
  expect(holding?.retired).toBe(true);
  expect(holding?.built).toBeUndefined();
  expect(isBuilt(byStart.get(zoneDayStart(NY, T('2026-02-03T12:00:00Z'))!)!)).toBe(true);
  // a late write into the retired day leaves it unbuilt: its hours before the cutoff are gone
  await f.write([{ ...randomEvents(random, 1, cutoff + HOUR, cutoff + 2 * HOUR)[0]!, owner_id: OWNERS[0]! }]);
  await f.builder().runOnce();
  expect(isBuilt((await f.marks.byIds([holding!.id]))[0]!)).toBe(false);
  await compareZoned(f, SEED, 'retention', nyReports('2026-02-02', '2026-02-04'));
});
