import { MongoClient, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { waitUntil } from '../../test/support/events-harness';
import { heldMarksHoldMs } from './rollup-feature';
import { HeldMarks } from './held-marks';
import { RollupMarks } from './rollup-marks';
import { touchedUnits, unitId } from './rollup-units';

let client: MongoClient;
let db: Db;
beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!);
  db = client.db(uniqueName('held_marks'));
});
afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await client.close();
});

function setup(holdMs = 10_000, lingerMs = 30) {
  const marks = new RollupMarks(db);
  let now = 1_000_000;
  const held = new HeldMarks(marks, { holdMs, lingerMs, now: () => now });
  const hourOf = async (at: Date) => (await marks.collection.findOne({ _id: unitId(touchedUnits([at])[0]!) }))!;
  return { marks, held, hourOf, advance: (ms: number) => (now += ms) };
}

describe('HeldMarks (the consumer write marks)', () => {
  test('when writes keep coming to a unit, then they share one started mark, the unit stays dirty meanwhile, and one finished mark follows the last', async () => {
    const { held, hourOf } = setup();
    const at = new Date('2026-10-20T10:15:00Z');
    for (let i = 0; i < 5; i++) {
      const h = await held.begin([at]);
      expect(await hourOf(at)).toMatchObject({ s: 1, f: 0, dirty: true }); // stored before the insert may run
      await held.end(h);
    }
    // still held: started != finished, so neither the builder nor a report uses the unit
    expect(await hourOf(at)).toMatchObject({ s: 1, f: 0 });
    // the real linger timer (30 ms) closes the hold, then the finished mark is stored
    await waitUntil(async () => (await hourOf(at)).f === 1, 5000, 'the finished mark');
    expect(await hourOf(at)).toMatchObject({ s: 1, f: 1 });
  });

  test('when a hold is older than holdMs, then the next write opens a new one (a new started mark) and the old one finishes when its writes end', async () => {
    const { held, hourOf, advance } = setup(1000);
    const at = new Date('2026-10-20T11:15:00Z');
    const first = await held.begin([at]);
    advance(1000);
    const second = await held.begin([at]);
    expect(await hourOf(at)).toMatchObject({ s: 2, f: 0 });
    await held.end(first);
    await held.drain(); // the old hold is finished at once; the current one has a write in flight
    expect(await hourOf(at)).toMatchObject({ s: 2, f: 1 });
    await held.end(second);
    await held.drain();
    expect(await hourOf(at)).toMatchObject({ s: 2, f: 2 });
  });

  test('when a write’s outcome is unknown, then its hold is never finished, not even by drain', async () => {
    const { held, hourOf } = setup();
    const at = new Date('2026-10-20T12:15:00Z');
    const lost = await held.begin([at]);
    const other = await held.begin([at]);
    held.lost(lost); // the insert's outcome is unknown: BucketWriter does not call end
    await held.end(other);
    // drain closes every lingering hold at once and waits for the mark writes: a finish some timer could bring later shows now
    await held.drain();
    expect(await hourOf(at)).toMatchObject({ s: 1, f: 0 });
  });

  test('when the started mark cannot be stored, then begin fails (no insert) and nothing is ever finished for it', async () => {
    const broken = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 200 });
    try {
      const held = new HeldMarks(new RollupMarks(broken.db('x')), { holdMs: 10_000, lingerMs: 10 });
      await expect(held.begin([new Date()])).rejects.toThrow();
      await expect(held.begin([new Date()])).rejects.toThrow(); // a failed hold is not joined: a new attempt
    } finally {
      await broken.close();
    }
  });

  test('the hold is renewed well inside ROLLUP_ABANDON_MS', () => {
    expect(heldMarksHoldMs(600_000)).toBe(10_000);
    expect(heldMarksHoldMs(4_000)).toBe(1_000);
  });
});
