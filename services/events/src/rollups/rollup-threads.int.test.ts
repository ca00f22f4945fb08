import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BUILDER_DEFAULTS,
  currentPages,
  prng,
  randomEvents,
  startRollupFixture,
  type RollupFixture,
} from '../../test/support/rollup-fixture';
import { RollupThreads, type PassRunner } from './rollup-threads';

// ROLLUP_THREADS: several builder threads, each building its shard of the units on its own
// connection, store exactly the pages one builder stores: every unit, owner, family and page,
// byte for byte, with blocks whose children other threads build.
const FROM = Date.parse('2026-09-01T00:00:00Z');
const DAY = 86_400_000;
// the compiled thread entry: a worker thread runs JavaScript (the test run builds it first)
const THREAD_FILE = path.resolve(__dirname, '../../dist/rollups/rollup-thread.js');

/** Passes until one builds nothing; how many passes that took. */
async function buildAll(runner: PassRunner): Promise<number> {
  for (let pass = 1; pass <= 12; pass++) {
    const { built, failed } = await runner.runOnce();
    expect(failed).toEqual([]);
    if (built.every((n) => n === 0)) return pass;
  }
  throw new Error('still building after 12 passes');
}

function threads(f: RollupFixture, count: number, threadFile = THREAD_FILE): RollupThreads {
  return new RollupThreads({
    count,
    threadFile,
    data: {
      mongoUrl: process.env.MONGO_URL!,
      mongoDb: f.db.databaseName,
      logLevel: 'error',
      builder: BUILDER_DEFAULTS,
      brokenRawRetentionDays: BUILDER_DEFAULTS.rawRetentionDays,
    },
  });
}

describe('rollup threads', () => {
  test('when 40 days of web-shaped events are built by three threads, then every page equals what one builder stores, byte for byte', async () => {
    const events = randomEvents(prng(41), 4000, FROM, FROM + 40 * DAY);
    const [one, three] = [await startRollupFixture(), await startRollupFixture()];
    const runner = threads(three, 3);
    try {
      await one.write(events, 500);
      await three.write(events, 500);
      await buildAll(one.builder());
      await buildAll(runner);
      const expected = await currentPages(one);
      const pages = await currentPages(three);
      expect([...pages.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, page] of expected) expect({ key, page: pages.get(key) }).toEqual({ key, page });
      // hours, days and the blocks above them (4, 16 and 32 days) were all built
      const levels = new Set([...expected.keys()].map((k) => k.split(':')[0]));
      expect([...levels].sort()).toEqual(['0', '2', '4', '6', '8', '9']);
    } finally {
      await runner.close();
      await one.stop();
      await three.stop();
    }
  }, 180_000);

  test('when a thread dies, then that pass fails with its exit, and the threads can still be closed', async () => {
    const f = await startRollupFixture();
    const dying = path.join(os.tmpdir(), `rollup-thread-dies-${process.pid}.js`);
    writeFileSync(dying, 'process.exit(3);\n');
    const runner = threads(f, 2, dying);
    try {
      await expect(runner.runOnce()).rejects.toThrow(/exited with 3/);
      // a later pass starts the threads again (and here they die again)
      await expect(runner.runOnce()).rejects.toThrow(/exited with 3/);
    } finally {
      await runner.close();
      await f.stop();
    }
  });
});
