import { MongoClient, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { RollupMarks } from './rollup-marks';
import { isBuilt, isLostFor } from './unit-mark';

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
    expect(docs).toHaveLength(6); // one unit per level: 1h, 4h, 1d, 4d, 16d, 32d
    for (const d of docs) expect([d.s, d.f, d.dirty]).toEqual([20, 20, true]);
  });

  test('when a write finishes, then its finished mark travels with the next started one, goes out alone once its wait is over, and drain stores it at once', async () => {
    // A finished mark waits on a timer for company: only setTimeout is faked, so "not yet" and
    // "its wait is over" are the test's to decide (the driver's timers come from node:timers).
    jest.useFakeTimers({
      doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate'],
    });
    try {
      const marks = new RollupMarks(db);
      const hourOf = async (id: string) => (await marks.collection.findOne({ _id: id }))!;
      const first = await marks.begin([new Date('2026-10-16T09:10:00Z')]);
      const finished = marks.end(first);
      expect((await hourOf(first[0]!)).f ?? 0).toBe(0); // not written yet: it waits for company
      const second = await marks.begin([new Date('2026-10-16T09:20:00Z')]);
      expect(second[0]).toBe(first[0]);
      await finished;
      expect(await hourOf(first[0]!)).toMatchObject({ s: 2, f: 1 }); // one upsert carried both

      let alone = false;
      const finishedAlone = marks.end(second).then(() => (alone = true));
      // no started mark comes to carry it: it still waits
      expect(await hourOf(first[0]!)).toMatchObject({ s: 2, f: 1 });
      expect(alone).toBe(false);
      jest.runOnlyPendingTimers();
      await finishedAlone;
      expect(await hourOf(first[0]!)).toMatchObject({ s: 2, f: 2 });

      const third = await marks.begin([new Date('2026-10-16T10:00:00Z')]);
      void marks.end(third);
      await marks.drain();
      expect(await hourOf(third[0]!)).toMatchObject({ s: 1, f: 1 });
    } finally {
      jest.useRealTimers();
    }
  });

  test('when the database refuses the marks, then begin fails (so the insert never happens)', async () => {
    const broken = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 200 });
    try {
      await expect(new RollupMarks(broken.db('x')).begin([new Date()])).rejects.toThrow();
    } finally {
      await broken.close();
    }
  });

  test('when marks are read for a plan, then each comes with what a plan reads (built generation, lost owners, retired) and without what only the builder reads', async () => {
    const marks = new RollupMarks(db);
    const at = new Date('2026-10-17T08:00:00Z');
    const stored = {
      _id: 'plan-a',
      l: 0,
      t: at.getTime(),
      s: 3,
      f: 3,
      at,
      dirty: false,
      b: { s: 3, f: 3, g: 'plan-a@g1', lost: ['owner-9'] },
      pending: [{ g: 'plan-a@g2', at }],
    };
    // plan-b: retired, never built
    const unbuilt: Partial<typeof stored> & { retired: true } = { ...stored, _id: 'plan-b', retired: true };
    delete unbuilt.b;
    await marks.collection.insertMany([stored, unbuilt] as never[]);
    const byId = new Map(
      (await marks.byIds(['plan-a', 'plan-b', 'plan-none'], { forPlanning: true })).map((m) => [m.id, m]),
    );
    expect([...byId.keys()].sort()).toEqual(['plan-a', 'plan-b']);
    const a = byId.get('plan-a')!;
    expect(a).toMatchObject({ level: 0, start: at.getTime(), started: 3, finished: 3 });
    expect(a.built).toEqual({ started: 3, finished: 3, generation: 'plan-a@g1', lost: ['owner-9'] });
    expect(isBuilt(a)).toBe(true);
    expect(isLostFor(a, 'owner-9')).toBe(true);
    expect([a.at, a.dirty, a.pending]).toEqual([undefined, undefined, undefined]);
    const b = byId.get('plan-b')!;
    expect(b.retired).toBe(true);
    expect(isBuilt(b)).toBe(false);
    // read whole, the same marks keep the builder's fields
    const whole = (await marks.byIds(['plan-a'])).find((m) => m.id === 'plan-a')!;
    expect(whole).toMatchObject({ dirty: false, pending: [{ generation: 'plan-a@g2' }] });
  });
});
