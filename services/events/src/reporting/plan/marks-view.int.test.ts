import { MongoClient, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import { RollupMarks } from '../../rollups/rollup-marks';
import { unitAt, unitId } from '../../rollups/rollup-units';
import { MarksView } from './marks-view';
import type { MarksReadOptions } from './rollup-coverage';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-02T10:00:00Z');
const at = (hours: number): Date => new Date(T0 + hours * HOUR);
const hourId = (hours: number): string => unitId(unitAt(0, T0 + hours * HOUR));

let client: MongoClient;
let db: Db;
let marks: RollupMarks;

/**
 * The store's marks, counting the lookups of reports that reach it (the view's own refreshes,
 * which pass a query time limit, apart); `failRefreshes` makes the refreshes throw.
 */
class CountedMarks {
  lookups = 0;
  failRefreshes = false;
  constructor(private readonly marks: RollupMarks) {}
  async byIds(ids: readonly string[], opts?: MarksReadOptions) {
    const refresh = opts?.maxTimeMS !== undefined;
    if (!refresh) this.lookups++;
    if (refresh && this.failRefreshes) throw new Error('the store is down (test)');
    return this.marks.byIds(ids, opts);
  }
  builtGenerations(ids: readonly string[], maxTimeMS: number) {
    return this.marks.builtGenerations(ids, maxTimeMS);
  }
}

/** Writes one started-and-finished write to these hours (their marks' counts go up by one). */
async function writeTo(...hours: number[]): Promise<void> {
  const ids = await marks.begin(hours.map(at));
  await marks.end(ids);
  await marks.drain();
}

const started = async (view: MarksView, id: string): Promise<number | undefined> =>
  (await view.byIds([id], { forPlanning: true })).find((m) => m.id === id)?.started;

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGO_URL!);
});
beforeEach(async () => {
  db = client.db(uniqueName('marks_view'));
  marks = new RollupMarks(db);
  await marks.init();
});
afterEach(async () => {
  await db.dropDatabase();
});
afterAll(async () => {
  await client.close();
});

describe('MarksView', () => {
  test('when reports ask for units it holds within the bound, then the store is not asked again and the answers are the same', async () => {
    await writeTo(0, 1);
    const store = new CountedMarks(marks);
    const view = new MarksView(store, { maxAgeMs: 60_000 });
    try {
      const ids = [hourId(0), hourId(1), hourId(2)];
      const first = await view.byIds(ids, { forPlanning: true });
      const second = await view.byIds(ids, { forPlanning: true });
      expect(store.lookups).toBe(1);
      expect(second).toEqual(first);
      // the unit without a mark is held as such: asked alone, still no store call
      expect(await view.byIds([hourId(2)], { forPlanning: true })).toEqual([]);
      expect(store.lookups).toBe(1);
      // a unit it does not hold is read, alone
      await view.byIds([hourId(0), hourId(5)], { forPlanning: true });
      expect(store.lookups).toBe(2);
      // a lookup not for a plan (all fields) and a fresh one go to the store
      await view.byIds([hourId(0)]);
      await view.byIds([hourId(0)], { forPlanning: true, fresh: true });
      expect(store.lookups).toBe(4);
    } finally {
      await view.stop();
    }
  });

  test('when marks are written after the view read them, then once it caught up every lookup sees them, a unit without a mark at first included', async () => {
    await writeTo(0);
    const view = new MarksView(marks, { maxAgeMs: 100 });
    try {
      expect(await started(view, hourId(0))).toBe(1);
      expect(await started(view, hourId(1))).toBeUndefined();
      await writeTo(0, 1);
      await view.caughtUp();
      expect(await started(view, hourId(0))).toBe(2);
      expect(await started(view, hourId(1))).toBe(1);
      expect(view.size).toBe(2);
    } finally {
      await view.stop();
    }
  });

  test('when refreshes fail, then a held mark is used until it is older than the bound, then read from the store again', async () => {
    await writeTo(0);
    let clock = T0;
    const store = new CountedMarks(marks);
    store.failRefreshes = true;
    const failures: number[] = [];
    let failed!: () => void;
    const twoFailures = new Promise<void>((resolve) => (failed = resolve));
    const view = new MarksView(store, {
      maxAgeMs: 100,
      now: () => clock,
      onRefreshFailed: (_err, inARow) => {
        failures.push(inARow);
        if (inARow === 2) failed();
      },
    });
    try {
      expect(await started(view, hourId(0))).toBe(1);
      await writeTo(0);
      await twoFailures;
      expect(failures.slice(0, 2)).toEqual([1, 2]);
      // within the bound the held mark is answered (older, as the bound allows)
      expect(await started(view, hourId(0))).toBe(1);
      expect(store.lookups).toBe(1);
      // past it, the store is read
      clock += 101;
      expect(await started(view, hourId(0))).toBe(2);
      expect(store.lookups).toBe(2);
      // refreshes succeed again: one after this call makes the view as new as it
      store.failRefreshes = false;
      await writeTo(0);
      const caught = view.caughtUp();
      clock += 1;
      await caught;
      expect(await started(view, hourId(0))).toBe(3);
      expect(store.lookups).toBe(2);
    } finally {
      await view.stop();
    }
  });

  test('when no report asked for longer than the idle time, then it lets its units go and the next lookup reads the store', async () => {
    await writeTo(0);
    let clock = T0;
    const store = new CountedMarks(marks);
    const view = new MarksView(store, { maxAgeMs: 60, idleMs: 1000, now: () => clock });
    try {
      await view.byIds([hourId(0)], { forPlanning: true });
      expect(view.size).toBe(1);
      clock += 1001;
      // resolved by the next refresh's turn, which finds the view idle
      await view.caughtUp();
      expect(view.size).toBe(0);
      const lookups = store.lookups;
      expect(await started(view, hourId(0))).toBe(1);
      expect(store.lookups).toBe(lookups + 1);
    } finally {
      await view.stop();
    }
  });

  test('when reports ask for more units than it may hold, then those past the cap are read from the store each time', async () => {
    const store = new CountedMarks(marks);
    const view = new MarksView(store, { maxAgeMs: 60_000, maxUnits: 3 });
    try {
      const ids = [0, 1, 2, 3, 4].map(hourId);
      await view.byIds(ids, { forPlanning: true });
      expect(view.size).toBe(3);
      await view.byIds(ids.slice(0, 3), { forPlanning: true });
      expect(store.lookups).toBe(1);
      await view.byIds(ids, { forPlanning: true });
      expect(store.lookups).toBe(2);
    } finally {
      await view.stop();
    }
  });

  test('when the bound is 0 or the view is stopped, then every lookup reads the store', async () => {
    const store = new CountedMarks(marks);
    const off = new MarksView(store, { maxAgeMs: 0 });
    await off.byIds([hourId(0)], { forPlanning: true });
    await off.byIds([hourId(0)], { forPlanning: true });
    expect(store.lookups).toBe(2);
    await off.caughtUp();
    const view = new MarksView(store, { maxAgeMs: 60_000 });
    await view.byIds([hourId(0)], { forPlanning: true });
    await view.stop();
    await view.byIds([hourId(0)], { forPlanning: true });
    expect(store.lookups).toBe(4);
  });
});
