import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, prom } from '@cm/platform';
import { expectRandomReportsEqualRaw } from '../../test/support/compare-reports';
import {
  BUILDER_DEFAULTS,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import type { CellPageDocument } from './page-layout';
import { CellStore } from './cell-store';
import { RollupBuilder } from './rollup-builder';
import { createRollupMetrics } from './rollup-metrics';
import { DAY_LEVEL, unitAt, unitId, unitsContaining } from './rollup-units';
import { RollupWorker } from './rollup-worker';

// A unit whose cells cannot be written (here: a store that refuses one unit's generations) is
// given up alone: every other unit is built, reports stay equal to raw events for random ranges,
// the failure is counted on every attempt and logged once.
const FROM = Date.parse('2026-10-20T00:00:00Z');
const TO = Date.parse('2026-10-24T00:00:00Z');
const random = prng(31);

class RefusingCells extends CellStore {
  refused?: string;
  attempts = 0;
  override async writePages(g: string, parts: number, docs: readonly CellPageDocument[]): Promise<number> {
    if (this.refused && g.startsWith(`${this.refused}@`)) {
      this.attempts++;
      throw new Error('cells refused by the test');
    }
    return super.writePages(g, parts, docs);
  }
}

let f: RollupFixture;
beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

// at each level: an hour (from raw events), a 4-hour unit and a day (from the hours' tables), and
// blocks whose build fails after their children were built
test.each([
  [0, '1h'],
  [2, '4h'],
  [4, '1d'],
  [6, '4d'],
  [8, '16d'],
])(
  'when one unit (level %i, %s) fails on every attempt, then every other unit is built, reports equal raw events, and the failure is counted each time but logged once',
  async (level, size) => {
    const events = randomEvents(random, 600, FROM, TO);
    await f.write(events);
    const failing = unitAt(level, events.find((e) => !e.bot)!.created.getTime());
    const cells = new RefusingCells(f.db);
    cells.refused = unitId(failing);

    const lines: string[] = [];
    const logger = createLogger({ service: 'rollup-failing-unit-test', level: 'warn' });
    logger.clear();
    logger.add(
      new winston.transports.Stream({
        stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
      }),
    );
    const registry = new prom.Registry();
    let clock = Date.now();
    const builder = new RollupBuilder(f.db, f.marks, cells, { ...BUILDER_DEFAULTS, now: () => new Date(clock) });
    const worker = new RollupWorker(builder, f.marks, createRollupMetrics(registry), { intervalMs: 1000 }, logger);

    for (let pass = 0; pass < 3; pass++) {
      await worker.pass();
      clock += 11 * 60_000; // past the longest wait before a failed unit is tried again
    }

    // only the failing unit and the units above it that are merged from its pages (which wait
    // for it) are still dirty: the 4-hour units and the day above a failing hour or 4-hour unit
    // are made from the hours' tables in the same pass, and the blocks from that day
    const dirty = (await f.marks.collection.find({ dirty: true }).toArray()).map((m) => m._id).sort();
    expect(dirty).toEqual(
      unitsContaining(failing.start)
        .filter((u) => u.level === level || (u.level > level && level >= DAY_LEVEL))
        .map(unitId)
        .sort(),
    );
    // its reservations were given up at once, not left for the sweep
    expect((await f.marks.collection.findOne({ _id: cells.refused }))!.pending ?? []).toEqual([]);
    expect(cells.attempts).toBe(3);
    const counted = (await registry.getSingleMetric('events_rollup_unit_failures_total')!.get()).values;
    expect(counted).toEqual([expect.objectContaining({ labels: { level: size }, value: 3 })]);
    const logged = lines.filter((l) => l.includes('rollup unit build failed'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({
      unit: cells.refused,
      unit_size: size,
      error: 'cells refused by the test',
    });

    // differential: reports over random ranges equal raw events while the unit keeps failing
    const used = f.usage.rollupUnits;
    expect(await expectRandomReportsEqualRaw(f, random, FROM - 86_400_000, TO + 86_400_000, 150)).toBeGreaterThan(150);
    expect(f.usage.rollupUnits - used).toBeGreaterThan(150);

    // once the store takes its cells again, the unit and everything above it build
    cells.refused = undefined;
    await worker.pass();
    expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
    expect(await expectRandomReportsEqualRaw(f, random, FROM, TO, 50)).toBeGreaterThan(0);
  },
  120_000,
);
