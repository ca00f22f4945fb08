import { MongoClient, type Db, type Document } from 'mongodb';
import { v7 } from 'uuid';
import { uniqueName } from '@cm/testkit';
import type { EventDocument } from '../storage/event-document';
import { prng, randomEvents } from '../../test/support/rollup-fixture';
import { FamilyTable } from './cell-table';
import { FAMILIES } from './families';
import { addHourRow, buildHourPipeline, hourEventRead, readHourRow } from './hour-pipeline';
import { writePages } from './page-writer';
import { unitId } from './rollup-units';

// The builder reads raw events with a plain find and evaluates the hour pipeline's `$group` in
// Node, one row per event (event-rows.ts). Its pages must be byte for byte those built from the
// server's `$group` rows: every owner, hour, family and aggregate, on events as the web sends them.
const DAY = Date.parse('2026-10-20T00:00:00Z');
const HOUR = 3_600_000;

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!);
  db = client.db(uniqueName('event_rows'));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Events the random mix leaves out: missing and odd fields, hostile strings, exact duplicates of a key. */
function oddEvents(): EventDocument[] {
  const at = (h: number, ms: number) => new Date(DAY + h * HOUR + ms);
  let n = 0;
  const base = (h: number, ms: number, extra: Partial<EventDocument>): EventDocument => ({
    _id: v7({ msecs: at(h, ms).getTime(), random: Uint8Array.from({ length: 16 }, (_, k) => (++n * 13 + k) % 256) }),
    owner_id: '7001',
    name: 'impression',
    url: 'https://XN--BCHER-KVA.example/Seite?utm_source=news&fbclid=IwAR2x#top',
    content_id: '',
    device_type: 'mobile',
    bot: false,
    metadata: {},
    created: at(h, ms),
    ...extra,
  });
  return [
    // the same key (visitor, measures, dims) twice in an hour: one server row of two events
    base(3, 10, { visitor: 42, measures: { engaged_ms: 1500 } }),
    base(3, 20, { visitor: 42, measures: { engaged_ms: 1500 } }),
    base(3, 20, { visitor: 42, measures: { engaged_ms: 1500 }, metadata: { campaign: 'later' } }),
    // operators and dots as values, never as fields (a value that starts with `$` is left out: the
    // stand-in reads it as a field path inside `$ifNull`, MongoDB and event-rows.test.ts do not)
    base(4, 0, { url: '{"$gt":""}', content_id: 'x$where', metadata: { campaign: '{"$ne":1}', 'a.b': 'x$gt' } }),
    base(4, 1, { metadata: { n: 5, ok: true, s: 'kept' } as never, measures: { value: 0, scroll_depth: 100 } }),
    base(5, 0, {
      country: 'DE',
      utm_source: 'Facebook',
      utm_medium: 'paid',
      utm_campaign: 'Früh',
      referrer: 'l.facebook.com',
    }),
    // a bot is never counted
    base(5, 5, { bot: true, visitor: 7 }),
    { ...base(6, 0, {}), device_type: undefined as never, metadata: undefined as never },
    { ...base(23, HOUR - 1, { visitor: 2 ** 52 - 1 }), owner_id: '7002' },
  ];
}

/** One owner-hour's pages per family from rows, in the builder's way. */
async function pagesFrom(rows: AsyncIterable<Document>): Promise<Document[]> {
  const tables = new Map<string, Map<string, FamilyTable>>();
  for await (const doc of rows) {
    const row = readHourRow(doc);
    const key = `${row.owner} ${row.hour}`;
    let byFamily = tables.get(key);
    if (!byFamily) tables.set(key, (byFamily = new Map(FAMILIES.map((f) => [f.id, new FamilyTable(f, 100_000)]))));
    addHourRow(byFamily, row);
  }
  const pages: Document[] = [];
  for (const key of [...tables.keys()].sort()) {
    const [owner, hour] = key.split(' ') as [string, string];
    const g = `${unitId({ level: 0, start: DAY + Number(hour) * HOUR })}@test`;
    for (const table of tables.get(key)!.values())
      if (table.size > 0) pages.push(...writePages(g, owner, table.family, table.sorted()));
  }
  return pages;
}

async function* eventRows(from: Date, to: Date): AsyncIterable<Document> {
  const read = hourEventRead(from, to);
  for await (const event of db.collection('events_day').find(read.filter, read.options)) yield read.rowOf(event);
}

describe('hour rows from raw events', () => {
  test('when a day of web-shaped events is read with find and grouped in Node, then its pages equal those of the server $group, byte for byte', async () => {
    const events = [...randomEvents(prng(7), 3000, DAY, DAY + 24 * HOUR), ...oddEvents()];
    await db.collection('events_day').insertMany(events as unknown as Document[]);
    const from = new Date(DAY);
    const to = new Date(DAY + 24 * HOUR);
    const server = await pagesFrom(db.collection('events_day').aggregate(buildHourPipeline(from, to)));
    const node = await pagesFrom(eventRows(from, to));
    expect(server.length).toBeGreaterThan(100);
    expect(node).toEqual(server);
  });

  test('when only some hours are read, then the rows are those hours and sorted by owner', async () => {
    const from = new Date(DAY + 3 * HOUR);
    const to = new Date(DAY + 6 * HOUR);
    const owners: string[] = [];
    const hours = new Set<number>();
    for await (const row of eventRows(from, to)) {
      owners.push(readHourRow(row).owner);
      hours.add(readHourRow(row).hour);
    }
    expect(owners).toEqual([...owners].sort());
    expect([...hours].sort()).toEqual([3, 4, 5]);
  });
});
