import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { BrokenUnits } from '../../rollups/broken-units';
import { CellStore } from '../../rollups/cell-store';
import { RollupMarks } from '../../rollups/rollup-marks';
import { createLogger } from '@cm/platform';
import type { ApiKeyPrincipal } from '../../api-keys/api-key-service';
import {
  OWNERS,
  PREFIX,
  prng,
  REPORT_LIMITS,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../../test/support/rollup-fixture';
import { ReportService } from '../http/report-service';
import { PageCache } from './page-cache';
import { PlannedCountSource } from './planned-count-source';

const FROM = Date.parse('2026-10-20T00:00:00Z');
const HOUR = 3_600_000;
const caller: ApiKeyPrincipal = { id: 'queries', ownerIds: new Set(OWNERS) };
const silent = createLogger({ service: 'report-queries-test', level: 'error', silent: true });

let f: RollupFixture;
let client: MongoClient;
let commands: CommandStartedEvent[];
/** Commands sent (`> name`) and answered (`< name`), in the order the driver saw them. */
let timeline: string[] = [];
let service: ReportService;
let cache: PageCache;

beforeAll(async () => {
  f = await startRollupFixture();
  // owner 0 in every hour of two days; owner 1 only in the first day's hours 0-5
  const random = prng(41);
  await f.write([
    ...randomEvents(random, 600, FROM, FROM + 48 * HOUR).map((e) => ({ ...e, owner_id: OWNERS[0]! })),
    ...randomEvents(random, 60, FROM, FROM + 6 * HOUR).map((e) => ({ ...e, owner_id: OWNERS[1]! })),
  ]);
  await f.builder().runOnce();
  // the reporting side over its own connection, every command it sends recorded
  client = await MongoClient.connect(process.env.MONGO_URL!, { monitorCommands: true });
  client.on('commandStarted', (e) => {
    commands.push(e);
    timeline.push(`> ${nameOf(e)}`);
  });
  client.on('commandSucceeded', (e) => timeline.push(`< ${String(e.commandName)}`));
  const db = client.db(f.db.databaseName);
  const marks = new RollupMarks(db);
  const cells = new CellStore(db);
  cache = new PageCache(64 * 1024 * 1024);
  const limits = REPORT_LIMITS;
  const source = new PlannedCountSource(db, {
    prefix: PREFIX,
    maxRangeDays: 400,
    concurrency: 8,
    queryTimeoutMs: 600_000,
    deadlineMs: 600_000,
    rollups: { marks, cells, broken: new BrokenUnits(marks.collection, cells, silent), cache },
  });
  service = new ReportService(source, limits);
});

afterAll(async () => {
  await client.close();
  await f.stop();
});

const nameOf = (c: CommandStartedEvent) =>
  c.commandName === 'find' ? `find ${String(c.command.find)}` : c.commandName;

/** The collections a report's finds went to, in order, its commands in the order sent, and the answer. */
async function queriesOf(body: Record<string, unknown>): Promise<{ answer: unknown; finds: string[]; sent: string[] }> {
  commands = [];
  timeline = [];
  const answer = await service.report(caller, body);
  return {
    answer,
    finds: commands.filter((c) => c.commandName === 'find').map((c) => String(c.command.find)),
    sent: commands.map(nameOf),
  };
}

const twoDays = (owner: string) => ({
  created__gte: '2026-10-20 00:00:00',
  created__lte: '2026-10-21 23:59:59',
  owner_id: owner,
  metrics: 'count,uniques',
});

test('when every page a report needs is cached, then it reads the marks once and neither the manifests nor the marks again, still equals raw events, and the cache counts what it served', async () => {
  const before = { hits: cache.hits, reads: cache.reads };
  const first = await queriesOf(twoDays(OWNERS[0]!));
  expect(first.finds).toContain('rollup_cells_manifests');
  const read = cache.reads - before.reads;
  expect(read).toBeGreaterThan(0);
  expect(cache.hits).toBe(before.hits);
  const again = await queriesOf(twoDays(OWNERS[0]!));
  expect(again.finds).toEqual(['rollup_marks']);
  // the same pages again, every one from the cache
  expect(cache.hits - before.hits).toBe(read);
  expect(cache.reads - before.reads).toBe(read);
  expect(again.answer).toEqual(first.answer);
  expect(again.answer).toEqual(await f.raw.report(caller, twoDays(OWNERS[0]!)));
});

test('when the owner has no page in some planned units, then the report checks that those units still point at what it read, and equals raw events', async () => {
  const body = twoDays(OWNERS[1]!);
  await queriesOf(body);
  const again = await queriesOf(body);
  // the coverage, then the still-current check of the units without a page of this owner
  expect(again.finds.filter((c) => c === 'rollup_marks')).toHaveLength(2);
  expect(again.answer).toEqual(await f.raw.report(caller, body));
});

test('when a day in a zone behind UTC is asked over built units, then its days, 4-hour units and hours are looked up in one round (two finds side by side), and it equals raw events', async () => {
  // New York's 2026-10-20 is 04:00 to 04:00 UTC: four hours, five 4-hour units and none of the UTC days
  const body = {
    created__gte: '2026-10-20',
    created__lte: '2026-10-20',
    timezone: 'America/New_York',
    interval: 'day',
    owner_id: OWNERS[0]!,
    metrics: 'count,uniques',
  };
  await queriesOf(body);
  const again = await queriesOf(body);
  expect(again.finds).toEqual(['rollup_marks', 'rollup_marks']);
  expect(again.answer).toEqual(await f.raw.report(caller, body));
});

test('when a grouped report of days long built is asked again with its pages cached, then it sends only the marks find: no bucket listing, no witness of its first pages', async () => {
  const body = { ...twoDays(OWNERS[0]!), metrics: 'count', group_by: 'url' };
  const first = await queriesOf(body);
  expect(first.finds).toContain('rollup_cells');
  const again = await queriesOf(body);
  expect(again.sent).toEqual(['find rollup_marks']);
  expect(again.answer).toEqual(first.answer);
  expect(again.answer).toEqual(await f.raw.report(caller, body));
});

test('when a range starts off the hour (its edge is read raw), then the buckets are listed beside the marks find, not after it, and it equals raw events', async () => {
  const body = { ...twoDays(OWNERS[0]!), created__gte: '2026-10-20 00:30:00', group_by: 'url' };
  await queriesOf(body);
  const again = await queriesOf(body);
  // sent before the marks were answered: it does not wait for the plan
  expect(timeline.indexOf('> listCollections')).toBeGreaterThanOrEqual(0);
  expect(timeline.indexOf('> listCollections')).toBeLessThan(timeline.indexOf('< find'));
  expect(again.sent.filter((c) => c === 'listCollections')).toHaveLength(1);
  expect(again.sent).toContain('aggregate');
  expect(again.answer).toEqual(await f.raw.report(caller, body));
});

test('when events reach an hour built long ago (it is dirty now), then the next report lists the buckets once its plan reads that hour raw and counts every acknowledged event', async () => {
  // last: the events written here change owner 0's answers
  const body = { ...twoDays(OWNERS[0]!), group_by: 'url' };
  const before = await queriesOf(body);
  expect(before.sent).not.toContain('listCollections');
  const late = randomEvents(prng(7), 25, FROM + 30 * HOUR, FROM + 31 * HOUR).map((e) => ({
    ...e,
    owner_id: OWNERS[0]!,
  }));
  await f.write(late);
  const after = await queriesOf(body);
  // listed once the marks were answered and the plan read that hour raw, before the raw read
  const listedAt = timeline.indexOf('> listCollections');
  expect(listedAt).toBeGreaterThan(timeline.indexOf('< find'));
  expect(timeline.indexOf('> aggregate')).toBeGreaterThan(listedAt);
  expect(after.answer).toEqual(await f.raw.report(caller, body));
  const total = (answer: unknown) => (answer as Array<{ value: number }>).reduce((n, row) => n + row.value, 0);
  expect(total(after.answer)).toBe(total(before.answer) + late.filter((e) => !e.bot).length);
});
