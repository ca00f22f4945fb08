import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { RollupMarks } from '../../rollups/rollup-marks';
import { RollupCoverage } from './rollup-coverage';

const DAY = 86_400_000;
const from = Date.parse('2025-10-01T00:00:00Z');
let client: MongoClient;
const finds: CommandStartedEvent[] = [];

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!, { monitorCommands: true });
  client.on('commandStarted', (e) => {
    if (e.commandName === 'find') finds.push(e);
  });
});
afterAll(async () => {
  await client.close();
});

describe('RollupCoverage.load', () => {
  test('when the report must stop (deadline, client gone) while marks are loaded, then no further query is issued', async () => {
    const db = client.db(uniqueName('coverage'));
    const coverage = new RollupCoverage(new RollupMarks(db));
    const stop = new Error('the report took longer than its deadline');
    let checks = 0;
    const budget = {
      remainingMs: () => 1000,
      run: <T>(query: () => Promise<T>): Promise<T> => {
        if (++checks > 2) throw stop;
        return query();
      },
    };
    finds.length = 0;
    // 400 days with nothing built: the hour level alone is 9,600 ids, several chunks of queries
    await expect(coverage.load([{ start: from, end: from + 400 * DAY }], budget)).rejects.toBe(stop);
    expect(finds).toHaveLength(2);
    await db.dropDatabase();
  });

  test('when a span reaches the year 9999, then loading is a 400 before any query', async () => {
    const db = client.db(uniqueName('coverage'));
    const coverage = new RollupCoverage(new RollupMarks(db));
    finds.length = 0;
    await expect(
      coverage.load([{ start: 0, end: Date.parse('9999-12-31T23:59:59Z') }], {
        remainingMs: () => 1000,
        run: (query) => query(),
      }),
    ).rejects.toMatchObject({ details: [{ field: 'created__gte' }] });
    expect(finds).toHaveLength(0);
  });
});
