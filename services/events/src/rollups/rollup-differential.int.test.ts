import { ValidationError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import { randomReportBody } from '../test-support/random-report';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../test-support/rollup-fixture';

// Differential test: a report planned over rollups equals the same report from raw events only,
// for random event sets with late events, duplicates and redeliveries and random queries, while
// rollups are complete, partly stale, or being built. REPORT_DIFF_SEED reproduces a run.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const QUERIES_PER_CHECK = Number(process.env.REPORT_DIFF_QUERIES ?? 250);
const FROM = Date.parse('2026-10-23T00:00:00Z');
const TO = Date.parse('2026-11-03T00:00:00Z'); // covers the European (10-25) and US (11-01) autumn DST changes
const caller: ApiKeyPrincipal = { id: 'diff', ownerIds: new Set(OWNERS) };

let f: RollupFixture;
const random = prng(SEED);

beforeEach(async () => {
  f = await startRollupFixture();
});
afterEach(async () => {
  await f.stop();
});

/** Runs random queries on both services and fails on the first difference (with seed and query). */
async function compareRandomQueries(phase: string): Promise<number> {
  let compared = 0;
  let rows = 0;
  const before = f.usage.rollupUnits;
  for (let i = 0; i < QUERIES_PER_CHECK; i++) {
    const body = randomReportBody(random, FROM - 2 * 86_400_000, TO + 2 * 86_400_000);
    const [rolled, raw] = await Promise.all([answer(() => f.rolled.report(caller, body)), answer(() => f.raw.report(caller, body))]);
    if (JSON.stringify(rolled) !== JSON.stringify(raw)) {
      throw new Error(`seed ${SEED}, ${phase}, query ${i}: ${JSON.stringify(body)}\nrollups: ${JSON.stringify(rolled).slice(0, 2000)}\nraw:     ${JSON.stringify(raw).slice(0, 2000)}`);
    }
    compared++;
    if (Array.isArray(raw)) rows += raw.length;
  }
  // the comparison means something only if reports have rows and rollups answered parts of them
  expect(rows).toBeGreaterThan(QUERIES_PER_CHECK);
  expect(f.usage.rollupUnits - before).toBeGreaterThan(QUERIES_PER_CHECK);
  return compared;
}

async function answer(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ValidationError) return { error: err.details };
    throw err;
  }
}

/** One random event set through all phases: built, stale, built while written, caught up. */
async function differentialRun(events: number): Promise<number> {
  // 1. events written, some batches twice (redelivery: duplicates are refused, counted once)
  const first = randomEvents(random, events, FROM, TO);
  await f.write(first);
  await f.write(first.slice(0, events / 8), 7);
  await f.builder().runOnce();
  let compared = await compareRandomQueries('built');

  // 2. late events into hours and days already built, plus redelivered ones: those units are dirty now
  await f.write([...randomEvents(random, events / 4, FROM, TO), ...first.slice(100, 140)], 13);
  compared += await compareRandomQueries('stale');

  // 3. events arriving while units are being built: each reservation lets a write land first
  const during = randomEvents(random, events / 5, FROM, TO);
  let next = 0;
  const builder = f.builder({
    hooks: {
      afterReserve: async () => {
        if (next < during.length) await f.write(during.slice(next, (next += 10)), 10);
      },
    },
  });
  await builder.runOnce();
  compared += await compareRandomQueries('built while writing');

  // 4. caught up again
  for (let i = 0; i < 3; i++) await f.builder().runOnce();
  expect(await f.marks.collection.countDocuments({ dirty: true })).toBe(0);
  compared += await compareRandomQueries('caught up');
  return compared;
}

describe(`rollups vs raw events (seed ${SEED}, REPORT_DIFF_SEED reproduces)`, () => {
  test.each([[400], [800]])(
    'when %d random events are rolled up, made stale, rebuilt while written and caught up, then every random report equals the raw-only report',
    async (events) => {
      expect(await differentialRun(events)).toBe(4 * QUERIES_PER_CHECK);
    },
    120_000,
  );
});
