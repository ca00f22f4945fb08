import { loadEventsConfig } from '../config';
import { HeldMarks, type MarkWrites } from './held-marks';
import { bucketInsertTimeoutMs, heldMarksHoldMs } from './rollup-feature';
import type { UnitRef } from './rollup-units';

/** Records the marks the holds ask for (stored at once). */
function fakeMarks() {
  const calls: { kind: 'start' | 'finish' | 'touch'; units: number }[] = [];
  const record = (kind: 'start' | 'finish' | 'touch') => (units: readonly UnitRef[]) => {
    calls.push({ kind, units: units.length });
    return Promise.resolve();
  };
  const marks: MarkWrites = {
    start: record('start'),
    finish: record('finish'),
    touch: record('touch'),
    drain: () => Promise.resolve(),
  };
  return { marks, touches: () => calls.filter((c) => c.kind === 'touch').length, calls };
}

function setup() {
  const fake = fakeMarks();
  let now = 1_000_000;
  // long timers: the test drives refresh() with its own clock
  const held = new HeldMarks(fake.marks, { holdMs: 600_000, refreshMs: 10_000, lingerMs: 600_000, now: () => now });
  return { ...fake, held, advance: (ms: number) => (now += ms) };
}

const at = [new Date('2026-10-20T10:15:00Z')];

describe('HeldMarks refresh', () => {
  test('when a write stays in flight, then its units get a fresh `at` once per refresh interval, not before', async () => {
    const { held, touches, advance, calls } = setup();
    const holds = await held.begin(at);
    advance(9_999);
    await held.refresh();
    expect(touches()).toBe(0);
    advance(1);
    await held.refresh();
    expect(touches()).toBe(1);
    expect(calls.at(-1)!.units).toBe(calls[0]!.units); // every unit the started mark touched
    await held.refresh();
    expect(touches()).toBe(1); // just refreshed
    advance(10_000);
    await held.refresh();
    expect(touches()).toBe(2);
    await held.end(holds);
  });

  test('when a newer hold of the same unit stored its started mark, then the older hold with a write still in flight needs no separate refresh', async () => {
    const fake = fakeMarks();
    let now = 1_000_000;
    const held = new HeldMarks(fake.marks, { holdMs: 10_000, lingerMs: 600_000, now: () => now });
    const slow = await held.begin(at);
    now += 10_000;
    const next = await held.begin(at); // a new hold: a new started mark, a fresh `at`
    await held.refresh();
    expect(fake.touches()).toBe(0);
    await held.end(next);
    now += 10_000;
    await held.refresh();
    expect(fake.touches()).toBe(1); // only the slow write is left in flight
    await held.end(slow);
  });

  test('when no write is in flight any more, then nothing is refreshed', async () => {
    const { held, touches, advance } = setup();
    await held.end(await held.begin(at));
    advance(60_000);
    await held.refresh();
    expect(touches()).toBe(0);
  });

  test('when a write’s outcome is unknown, then its hold is no longer refreshed and never finished (the builder may presume it dead)', async () => {
    const { held, touches, advance, calls } = setup();
    held.lost(await held.begin(at));
    advance(60_000);
    await held.refresh();
    await held.drain();
    expect(touches()).toBe(0);
    expect(calls.filter((c) => c.kind === 'finish')).toEqual([]);
    // a later write opens a new hold (a new started mark), refreshed and finished as usual
    const next = await held.begin(at);
    expect(calls.filter((c) => c.kind === 'start')).toHaveLength(2);
    advance(10_000);
    await held.refresh();
    expect(touches()).toBe(1);
    await held.end(next);
    await held.drain();
    expect(calls.filter((c) => c.kind === 'finish')).toHaveLength(calls[0]!.units);
  });
});

describe('slow writes against ROLLUP_ABANDON_MS', () => {
  test('when ROLLUP_ABANDON_MS is set, then insert bound < refresh interval < abandon time, and a value too small for that is refused at start', () => {
    for (const abandon of [60_000, 600_000, 3_600_000]) {
      const refresh = heldMarksHoldMs(abandon);
      expect(bucketInsertTimeoutMs(abandon)).toBeLessThan(refresh);
      // a refresh tick comes every half interval: a mark is at most 1.5 intervals old while its write is in flight
      expect(1.5 * refresh + bucketInsertTimeoutMs(abandon)).toBeLessThan(abandon / 2);
    }
    expect(bucketInsertTimeoutMs(600_000)).toBe(5000);
    expect(loadEventsConfig({}).ROLLUP_ABANDON_MS).toBe(600_000);
    expect(() => loadEventsConfig({ ROLLUP_ABANDON_MS: '30000' })).toThrow(/ROLLUP_ABANDON_MS/);
  });
});
