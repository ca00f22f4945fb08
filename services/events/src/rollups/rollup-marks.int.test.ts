import { MongoClient, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { RollupMarks } from './rollup-marks';

let client: MongoClient;
let db: Db;
beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!);
  db = client.db(uniqueName('rollup_marks'));
});
afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await client.close();
});

describe('RollupMarks', () => {
  test('when many writes mark at once, then marks asked for together go out together and every increment is counted', async () => {
    const marks = new RollupMarks(db);
    const at = new Date('2026-10-15T13:30:00Z');
    const writes = Array.from({ length: 20 }, async () => {
      const ids = await marks.begin([at]);
      // begin resolved: the started mark is stored before the caller may insert
      const hour = await marks.collection.findOne({ _id: ids[0] });
      expect(hour!.s).toBeGreaterThanOrEqual(1);
      await marks.end(ids);
    });
    await Promise.all(writes);
    await marks.drain();
    const docs = await marks.collection.find({}).toArray();
    expect(docs).toHaveLength(10); // one unit per level: 1h, 2h, 4h, 8h, 1d, 2d .. 32d
    for (const d of docs) expect([d.s, d.f, d.dirty]).toEqual([20, 20, true]);
  });

  test('when the database refuses the marks, then begin fails (so the insert never happens)', async () => {
    const broken = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 200 });
    try {
      await expect(new RollupMarks(broken.db('x')).begin([new Date()])).rejects.toThrow();
    } finally {
      await broken.close();
    }
  });
});
