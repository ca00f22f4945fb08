import { MongoClient, MongoServerError, type CommandStartedEvent } from 'mongodb';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { loadEventsConfig } from '../config';
import type { EventDocument } from '../storage/event-document';
import { withInsertHook } from '../../test/support/insert-hook';
import { BucketWriter, type WriteMarks } from './bucket-writer';

let client: MongoClient;
const commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
  client.on('commandStarted', (e) => commands.push(e));
  await client.connect();
});
afterAll(async () => {
  await client.close();
});

const doc = (id: string): EventDocument => ({
  _id: id,
  owner_id: '1',
  name: 'e',
  url: '',
  content_id: '',
  device_type: 'desktop',
  bot: false,
  metadata: {},
  created: new Date(),
});

describe('bucket writer', () => {
  test('when events are written, then the insert carries the configured write concern (majority + journal by default) and a time bound', async () => {
    const config = loadEventsConfig({});
    const db = client.db(uniqueName('writer'));
    const writer = new BucketWriter(db, createLogger({ service: 't', level: 'error', silent: true }), {
      w: config.EVENTS_WRITE_CONCERN_W,
      journal: config.EVENTS_WRITE_CONCERN_J,
    });
    expect(await writer.write('events_20261122', [doc('a'), doc('b')])).toEqual([
      { status: 'written' },
      { status: 'written' },
    ]);
    const insert = commands.find((c) => c.commandName === 'insert' && c.databaseName === db.databaseName);
    expect(insert?.command.writeConcern).toEqual({ w: 'majority', j: true, wtimeout: 5000 });
    // bounded on the server, well inside ROLLUP_ABANDON_MS (rollups/rollup-feature.ts)
    expect(insert?.command.maxTimeMS).toBe(5000);
    expect(await writer.write('events_20261122', [doc('a'), doc('c')])).toEqual([
      { status: 'duplicate' },
      { status: 'written' },
    ]);
    await db.dropDatabase();
  });

  test('when the write concern is configured, then numbers and majority are accepted and anything else refused at start', () => {
    expect(loadEventsConfig({ EVENTS_WRITE_CONCERN_W: '2', EVENTS_WRITE_CONCERN_J: 'false' })).toMatchObject({
      EVENTS_WRITE_CONCERN_W: 2,
      EVENTS_WRITE_CONCERN_J: false,
    });
    expect(loadEventsConfig({})).toMatchObject({ EVENTS_WRITE_CONCERN_W: 'majority', EVENTS_WRITE_CONCERN_J: true });
    expect(() => loadEventsConfig({ EVENTS_WRITE_CONCERN_W: 'all' })).toThrow(/EVENTS_WRITE_CONCERN_W/);
    expect(() => loadEventsConfig({ EVENTS_WRITE_CONCERN_W: '0' })).toThrow(/EVENTS_WRITE_CONCERN_W/);
  });

  test('when an insert runs out of time after storing some documents, then all are retried, the retry stores each once, and its marks are left started (outcome unknown)', async () => {
    const db = client.db(uniqueName('writer'));
    let first = true;
    const slowDb = withInsertHook(db, async (docs, insert) => {
      if (!first) return insert();
      first = false;
      await insert(docs.slice(0, 1));
      throw new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' });
    });
    const marks: string[] = [];
    const recording: WriteMarks<number> = {
      begin: () => Promise.resolve(marks.push('begin')),
      end: () => Promise.resolve(void marks.push('end')),
      lost: () => void marks.push('lost'),
    };
    const writer = new BucketWriter(
      slowDb,
      createLogger({ service: 't', level: 'error', silent: true }),
      { w: 1 },
      recording,
    );
    const docs = [doc('t1'), doc('t2')];
    expect((await writer.write('events_20261122', docs)).map((r) => r.status)).toEqual(['failed', 'failed']);
    expect((await writer.write('events_20261122', docs)).map((r) => r.status)).toEqual(['duplicate', 'written']);
    expect(await db.collection('events_20261122').countDocuments({})).toBe(2);
    expect(marks).toEqual(['begin', 'lost', 'begin', 'end']);
    await db.dropDatabase();
  });
});
