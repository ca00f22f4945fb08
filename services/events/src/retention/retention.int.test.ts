import { createLogger } from '@cm/platform';
import { bucketName } from '../storage/bucket-naming';
import { startEventsHarness, waitUntil, type EventsHarness } from '../../test/support/events-harness';
import { RetentionJob } from './retention-job';

let h: EventsHarness;

beforeAll(async () => {
  h = await startEventsHarness({ RETENTION_DAYS: '10' });
});
afterAll(async () => {
  await h.stop();
});

const names = async () => (await h.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('retention', () => {
  test('when a pass runs, then only day buckets past the retention are dropped and other collections are untouched', async () => {
    const prefix = h.config.BUCKET_PREFIX;
    const keep = [bucketName(prefix, daysAgo(0)), bucketName(prefix, daysAgo(5)), bucketName(prefix, daysAgo(10))];
    const drop = [bucketName(prefix, daysAgo(12)), bucketName(prefix, daysAgo(400))];
    const others = [
      `${prefix}_notes`,
      `other_${bucketName(prefix, daysAgo(400)).slice(prefix.length + 1)}`,
      `${prefix}_2020010`,
    ];
    for (const name of [...keep, ...drop, ...others]) await h.db.collection(name).insertOne({ marker: name });

    const job = new RetentionJob(
      h.db,
      { prefix, retentionDays: 10, intervalMs: 60_000 },
      createLogger({ service: 't', level: 'error', silent: true }),
    );
    expect((await job.runOnce()).sort()).toEqual([...drop].sort());
    const left = await names();
    for (const name of [...keep, ...others]) expect(left).toContain(name);
    for (const name of drop) expect(left).not.toContain(name);
    expect(await job.runOnce()).toEqual([]);
  });

  test('when the service starts, then its retention job drops expired buckets on its own', async () => {
    const old = bucketName(h.config.BUCKET_PREFIX, daysAgo(30));
    await h.db.collection(old).insertOne({ marker: 'old' });
    await h.restart();
    await waitUntil(async () => !(await names()).includes(old), 5000, `${old} to be dropped`);
  });
});
