import { BSON } from 'mongodb';
import { v7 } from 'uuid';
import { bothAnswers, expectRandomReportsEqualRaw } from '../../test/support/compare-reports';
import {
  BUILDER_DEFAULTS,
  OWNERS,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import type { EventDocument } from '../storage/event-document';
import { CellStore } from './cell-store';
import type { ManifestDocument } from './cell-manifests';
import { RollupBuilder } from './rollup-builder';

const FROM = Date.parse('2026-10-20T00:00:00Z');
const random = prng(77);

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** What beacons of one owner make of an hour: distinct content_ids, 20 metadata values of 512 control characters. */
function pixelBurst(owner: string, count: number, hour: number): EventDocument[] {
  const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, '\u0001'.repeat(512)]));
  return Array.from({ length: count }, (_, i) => {
    const t = hour + i * 1000;
    return {
      _id: v7({ msecs: t }),
      owner_id: owner,
      name: 'pixel',
      url: 'https://a.example/p',
      content_id: `c${i}`,
      device_type: 'desktop',
      bot: false,
      metadata,
      created: new Date(t),
    };
  });
}

test('when pixel beacons fill one owner’s hour with control-character metadata (over 16 MB as JSON), then its pages stay under the limit, every unit is built and reports equal raw events', async () => {
  // 400 x 20 x 512 characters: about 4 MB counted in characters, about 24 MB written as JSON
  await f.write(pixelBurst(OWNERS[0]!, 400, FROM + 3_600_000));
  await f.write(
    randomEvents(random, 200, FROM + 2 * 86_400_000, FROM + 3 * 86_400_000).map((e) => ({
      ...e,
      owner_id: OWNERS[1]!,
    })),
  );
  await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  // MongoDB refuses documents over 16 MB: pages stay far below (metadata is stored once per page)
  for (const doc of await f.cells.collection.find({}).toArray())
    expect(BSON.calculateObjectSize(doc)).toBeLessThanOrEqual(16 * 1024 * 1024 - 256 * 1024);

  const range = { created__gte: '2026-10-20', created__lte: '2026-10-23' };
  for (const body of [
    { owner_id: OWNERS[0], ...range, metadata: 'k0,k19' },
    { owner_id: OWNERS[0], ...range, group_by: 'content_id', metadata: 'k7', limit: 5, order_by: 'name' },
    { owner_id: OWNERS[0], ...range, interval: 'hour' },
    { owner_id: OWNERS[1], ...range, group_by: 'url' },
  ]) {
    const { rolled, raw } = await bothAnswers(f, body);
    expect(rolled).toEqual(raw);
    expect(Array.isArray(raw) && raw.length > 0).toBe(true);
  }
  expect(f.usage.rollupUnits).toBeGreaterThan(0);
}, 120_000);

test('when a generation has more cell documents than one manifest may list, then its manifest is split and every cell is found by merges, reports and drops', async () => {
  const small = new CellStore(f.db, { maxIds: 3, maxBytes: 4_000_000 });
  const build = () => new RollupBuilder(f.db, f.marks, small, BUILDER_DEFAULTS).runOnce();
  await f.write(randomEvents(random, 300, FROM, FROM + 2 * 86_400_000));
  await build();
  const manifests = f.db.collection<ManifestDocument>('rollup_cells_manifests');
  const heads = await manifests.find({ parts: { $gt: 2 } }).toArray();
  expect(heads.length).toBeGreaterThan(0);
  // every part of a generation's manifest is within the limit, and together they list its documents
  for (const m of await manifests.find({}).toArray()) expect(m.ids.length).toBeLessThanOrEqual(3);
  expect(await expectRandomReportsEqualRaw(f, random, FROM, FROM + 2 * 86_400_000, 60)).toBeGreaterThan(60);

  // late events: rebuilt units drop their old generations, every part and every cell of them
  await f.write(randomEvents(random, 60, FROM, FROM + 2 * 86_400_000));
  await build();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  const current = new Set((await f.marks.collection.find({}).toArray()).flatMap((m) => (m.b ? [m.b.g] : [])));
  const all = await manifests.find({}).toArray();
  expect(all.filter((m) => !current.has(m.g))).toEqual([]);
  expect(await f.cells.collection.countDocuments({})).toBe(all.reduce((n, m) => n + m.ids.length, 0));
  expect(await expectRandomReportsEqualRaw(f, random, FROM, FROM + 2 * 86_400_000, 60)).toBeGreaterThan(60);
}, 120_000);
