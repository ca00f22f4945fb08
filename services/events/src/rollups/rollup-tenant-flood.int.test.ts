import { Writable } from 'node:stream';
import { v7 } from 'uuid';
import winston from 'winston';
import { createLogger, prom } from '@cm/platform';
import type { EventDocument } from '../storage/event-document';
import { bothAnswers } from '../../test/support/compare-reports';
import { BUILDER_DEFAULTS, OWNERS, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';
import { CellStore } from './cell-store';
import { pageId } from './page-layout';
import { RollupBuilder } from './rollup-builder';
import { createRollupMetrics } from './rollup-metrics';
import { unitAt, unitId } from './rollup-units';
import { RollupWorker } from './rollup-worker';

// One owner floods a unit with distinct urls (click ids in the path, a crawler, anyone sending hits
// for it): past ROLLUP_MAX_CELLS_PER_OWNER its pages family is not kept there, and its reports of
// that family read raw events. The other owner's units are built and used as usual, and every
// answer stays equal to raw events.
const [FLOODED, NEIGHBOUR] = OWNERS as [string, string];
const HOUR = Date.parse('2026-10-20T10:00:00Z');
const CAP = 50;

function event(
  owner: string,
  url: string,
  at: number,
  visitor: number,
  extra: Partial<EventDocument> = {},
): EventDocument {
  return {
    _id: v7({ msecs: at }),
    owner_id: owner,
    name: 'impression',
    url,
    content_id: '',
    device_type: 'mobile',
    bot: false,
    metadata: {},
    created: new Date(at),
    visitor,
    ...extra,
  };
}

let f: RollupFixture;
beforeAll(async () => {
  f = await startRollupFixture();
});
afterAll(async () => {
  await f.stop();
});

test('when one owner sends more distinct urls in an hour than the cap, then the other owner is built and read from rollups, the flooded owner reads raw for its pages, both equal raw, and the cap is counted and logged once', async () => {
  const events: EventDocument[] = [];
  // the flood: 4 x CAP distinct pages within one hour, stored as ingest stores them (canonical
  // url, the click id gone, the utm tag a field of its own)
  for (let i = 0; i < 4 * CAP; i++)
    events.push(
      event(FLOODED, `https://pub.example/landing/${i}`, HOUR + i * 1000, 1000 + i, {
        country: i % 2 === 0 ? 'DE' : 'AT',
        utm_source: 'ads',
      }),
    );
  // the neighbour: a few pages, visitors coming back, in the same hour and the next
  for (let i = 0; i < 60; i++)
    events.push(
      event(NEIGHBOUR, `https://news.example/story/${i % 3}`, HOUR + i * 90_000, 5000 + (i % 7), {
        device_type: i % 2 === 0 ? 'desktop' : 'mobile',
      }),
    );
  await f.write(events);

  const lines: string[] = [];
  const logger = createLogger({ service: 'rollup-flood-test', level: 'warn' });
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    }),
  );
  const registry = new prom.Registry();
  const builder = new RollupBuilder(f.db, f.marks, new CellStore(f.db), { ...BUILDER_DEFAULTS, maxCellsPerOwner: CAP });
  const worker = new RollupWorker(builder, f.marks, createRollupMetrics(registry), { intervalMs: 1000 }, logger);
  for (let pass = 0; pass < 3; pass++) await worker.pass();

  // the hour is built: the neighbour's pages are there, the flooded owner's pages family is a marked first page
  const hour = await f.marks.collection.findOne({ _id: unitId(unitAt(0, HOUR)) });
  expect(hour?.b).toBeDefined();
  const g = hour!.b!.g;
  const [flooded, neighbour, floodedTotals] = await Promise.all([
    f.db.collection('rollup_cells').findOne({ _id: pageId(g, FLOODED, 'p') as never }),
    f.db.collection('rollup_cells').findOne({ _id: pageId(g, NEIGHBOUR, 'p') as never }),
    f.db.collection('rollup_cells').findOne({ _id: pageId(g, FLOODED, 't') as never }),
  ]);
  expect(flooded?.over).toBe(true);
  expect(neighbour?.over).toBeUndefined();
  // the flooded owner's totals (one cell per name) are kept as usual
  expect(floodedTotals?.over).toBeUndefined();

  const range = { created__gte: '2026-10-20 00:00:00', created__lte: '2026-10-21 23:59:59' };
  const asked = [
    { owner_id: NEIGHBOUR, ...range, group_by: 'url', metrics: 'count,uniques' },
    { owner_id: FLOODED, ...range, group_by: 'url', metrics: 'count,uniques', limit: 5 },
    { owner_id: FLOODED, ...range, metrics: 'count,uniques' },
    { owner_id: FLOODED, ...range, group_by: 'country', metrics: 'count,uniques' },
    { owner_id: FLOODED, ...range, url: 'https://pub.example/landing/7', metrics: 'count,frequency' },
  ];
  for (const [i, body] of asked.entries()) {
    const before = f.usage.rollupUnits;
    const { rolled, raw } = await bothAnswers(f, body);
    expect(rolled).toEqual(raw);
    expect(Array.isArray(raw) && raw.length > 0).toBe(true);
    // the neighbour's pages, the flooded owner's totals and its countries are read from rollups
    if (i === 0 || i === 2 || i === 3) expect(f.usage.rollupUnits).toBeGreaterThan(before);
  }

  const counted = (await registry.getSingleMetric('events_rollup_owner_over_cap_total')?.get())?.values ?? [];
  expect(counted.find((v) => v.labels.family === 'p' && v.labels.level === '1h')?.value).toBe(1);
  // the attribution family (one utm_source) and the country family (two countries) stay under the cap
  expect(counted.some((v) => v.labels.family !== 'p')).toBe(false);
  const logged = lines.filter((l) => l.includes('ROLLUP_MAX_CELLS_PER_OWNER'));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toContain(`"owner_id":"${FLOODED}"`);
});
