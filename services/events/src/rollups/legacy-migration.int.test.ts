import { encodeSketch, sketchOfHashes } from '../sketches/distinct-sketch';
import { encodeQuantiles, quantilesOf } from '../sketches/quantile-sketch';
import { expectRandomReportsEqualRaw } from '../../test/support/compare-reports';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';
import { DAY_MS } from '../storage/time-units';
import { markFromDocument } from './mark-document';
import { isBuilt } from './unit-mark';
import { unitId } from './rollup-units';

// Cells written by the release before binary pages (the first format) are never read by reports:
// at its first pass the builder rebuilds the units whose raw events are kept and converts those
// whose raw events are gone (rollups kept longer than raw events), so no answer is lost.
const OLD_DAY = Date.parse('2026-09-01T00:00:00Z');
const caller = { id: 'legacy', ownerIds: new Set(OWNERS) };

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** A day unit of the first format for OWNERS[0]: clicks on two urls, views with engaged time. */
async function writeLegacyDay(day: number): Promise<string> {
  const unit = unitId({ level: 4, start: day });
  const g = `${unit}@legacy-0001`;
  const owner = OWNERS[0]!;
  const doc = (name: string, entries: unknown[], sides: Record<string, unknown[]>) => ({
    _id: JSON.stringify(['f', g, owner, name, 0]),
    o: owner,
    g,
    k: 'f',
    n: name,
    p: 0,
    e: JSON.stringify(entries),
    ...Object.fromEntries(Object.entries(sides).map(([k, v]) => [k, JSON.stringify(v)])),
  });
  const docs = [
    doc(
      'click',
      [
        ['c1', 'https://a.example/1', [2, 0, 1]],
        ['', 'https://a.example/2', [0, 4, 0]],
      ],
      {
        l: [
          [
            [day + 5, '01900000-0000-7000-8000-000000000001', { campaign: 'spring' }],
            null,
            [day + 9, '01900000-0000-7000-8000-000000000002', { campaign: 'autumn' }],
          ],
          [null, [day + 7, '01900000-0000-7000-8000-000000000003', {}], null],
        ],
        u: [
          [encodeSketch(sketchOfHashes([1, 2])), 0, encodeSketch(sketchOfHashes([3]))],
          [0, encodeSketch(sketchOfHashes([1, 4, 5])), 0],
        ],
        v: [encodeSketch(sketchOfHashes([1, 2, 3])), encodeSketch(sketchOfHashes([1, 4, 5]))],
        s: [
          [0, 0, 0],
          [0, [0, 0, 0, 0, 2, 300], 0],
        ],
        q: [
          [0, 0, 0],
          [0, [0, 0, Buffer.from(encodeQuantiles(quantilesOf([100, 200]))).toString('base64url')], 0],
        ],
      },
    ),
    // a coarse directory of the first format: its totals follow from the fine pages
    {
      _id: JSON.stringify(['d', g, owner, '', 0]),
      o: owner,
      g,
      k: 'c',
      p: 0,
      e: '[]',
      l: '[]',
      cp: 1,
      fp: [['click', 1]],
    },
  ];
  await f.db.collection('rollup_cells').insertMany(docs as never[]);
  await f.db
    .collection('rollup_cells_manifests')
    .insertOne({ _id: g, g, ids: docs.map((d) => d._id), parts: 1 } as never);
  // the unit's mark points at it (a unit built before keeps its write counts)
  const mark = await f.marks.collection.findOne({ _id: unit });
  const [s, fin] = mark ? [mark.s, mark.f] : [1, 1];
  await f.marks.collection.updateOne(
    { _id: unit },
    { $set: { l: 4, t: day, s, f: fin, at: new Date(day), dirty: false, b: { s, f: fin, g } } },
    { upsert: true },
  );
  return g;
}

test('when a unit of the first format starts before the raw retention, then the builder converts it and reports answer what it held', async () => {
  const g = await writeLegacyDay(OLD_DAY);
  const body = { owner_id: OWNERS[0], created__gte: '2026-09-01', created__lte: '2026-09-01' };
  // not read while of the first format (there are no raw events either)
  expect(await f.rolled.report(caller, body)).toEqual([]);
  // raw retention of 10 days: the day is past it, so it cannot be rebuilt from raw events
  await f.builder({ rawRetentionDays: 10 }).runOnce();
  const mark = (await f.marks.collection.findOne({ _id: unitId({ level: 4, start: OLD_DAY }) }))!;
  expect(isBuilt(markFromDocument(mark))).toBe(true);
  expect(mark.b!.g).not.toBe(g);
  expect(await f.db.collection('rollup_cells').countDocuments({ g })).toBe(0);
  expect(
    await f.rolled.report(caller, {
      ...body,
      group_by: 'url',
      metadata: 'campaign',
      metrics: 'count,uniques,value_sum,value_p50',
    }),
  ).toEqual([
    {
      name: 'click',
      url: 'https://a.example/1',
      value: 3,
      uniques: 3,
      uniques_exact: true,
      value_sum: 0,
      value_p50: null,
      value_p50_exact: true,
      metadata: { campaign: 'autumn' },
    },
    {
      name: 'click',
      url: 'https://a.example/2',
      value: 4,
      uniques: 3,
      uniques_exact: true,
      value_sum: 300,
      value_p50: 100,
      value_p50_exact: true,
      metadata: { campaign: '' },
    },
  ]);
  // every family answers it: by name, by country (unknown: the events predate countries), by device
  expect(await f.rolled.report(caller, { ...body, metrics: 'count,uniques' })).toEqual([
    { name: 'click', value: 7, uniques: 5, uniques_exact: true },
  ]);
  expect(await f.rolled.report(caller, { ...body, group_by: 'country' })).toEqual([
    { name: 'click', country: 'unknown', value: 7 },
  ]);
  expect(await f.rolled.report(caller, { ...body, device_type: 'mobile', metrics: 'count,uniques' })).toEqual([
    { name: 'click', value: 1, uniques: 1, uniques_exact: true },
  ]);
}, 60_000);

test('when a unit of the first format has its raw events, then it is rebuilt from them and reports equal raw events', async () => {
  const random = prng(404);
  const day = Date.parse('2026-10-20T00:00:00Z');
  await f.write(randomEvents(random, 300, day, day + DAY_MS));
  await f.builder().runOnce();
  // the day was built by the release before: its generation is of the first format
  const g = await writeLegacyDay(day);
  await f.builder().runOnce();
  await f.builder().runOnce();
  const mark = (await f.marks.collection.findOne({ _id: unitId({ level: 4, start: day }) }))!;
  expect(isBuilt(markFromDocument(mark))).toBe(true);
  expect(mark.b!.g).not.toBe(g);
  expect(await expectRandomReportsEqualRaw(f, random, day, day + DAY_MS, 40)).toBeGreaterThan(0);
}, 60_000);
