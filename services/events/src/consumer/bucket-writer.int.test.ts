import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { createLogger } from '@cm/platform';
import { uniqueName } from '@cm/testkit';
import { loadEventsConfig } from '../config';
import type { EventDocument } from '../storage/event-document';
import { BucketWriter } from './bucket-writer';

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

const doc = (id: string): EventDocument => ({ _id: id, owner_id: '1', name: 'e', url: '', content_id: '', device_type: 'desktop', bot: false, metadata: {}, created: new Date() });

describe('bucket writer', () => {
  test('when events are written, then the insert carries the configured write concern (majority + journal by default) and a time bound', async () => {
    const config = loadEventsConfig({});
    const db = client.db(uniqueName('writer'));
    const writer = new BucketWriter(db, createLogger({ service: 't', level: 'error', silent: true }), { w: config.EVENTS_WRITE_CONCERN_W, journal: config.EVENTS_WRITE_CONCERN_J });
    expect(await writer.write('events_20261122', [doc('a'), doc('b')])).toEqual([{ status: 'written' }, { status: 'written' }]);
    const insert = commands.find((c) => c.commandName === 'insert' && c.databaseName === db.databaseName);
    expect(insert?.command.writeConcern).toEqual({ w: 'majority', j: true, wtimeout: 5000 });
    // bounded on the server, well inside ROLLUP_ABANDON_MS (rollups/rollup-feature.ts)
    expect(insert?.command.maxTimeMS).toBe(5000);
    expect(await writer.write('events_20261122', [doc('a'), doc('c')])).toEqual([{ status: 'duplicate' }, { status: 'written' }]);
    await db.dropDatabase();
  });

  test('when the write concern is configured, then numbers and majority are accepted and anything else refused at start', () => {
    expect(loadEventsConfig({ EVENTS_WRITE_CONCERN_W: '2', EVENTS_WRITE_CONCERN_J: 'false' })).toMatchObject({ EVENTS_WRITE_CONCERN_W: 2, EVENTS_WRITE_CONCERN_J: false });
    expect(loadEventsConfig({})).toMatchObject({ EVENTS_WRITE_CONCERN_W: 'majority', EVENTS_WRITE_CONCERN_J: true });
    expect(() => loadEventsConfig({ EVENTS_WRITE_CONCERN_W: 'all' })).toThrow(/EVENTS_WRITE_CONCERN_W/);
    expect(() => loadEventsConfig({ EVENTS_WRITE_CONCERN_W: '0' })).toThrow(/EVENTS_WRITE_CONCERN_W/);
  });
});
