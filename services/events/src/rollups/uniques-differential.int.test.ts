import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import type { ReportRow } from '../reporting/read/report-row';
import { parseReportRequest } from '../reporting/request/parse-report-request';
import type { ReportQuery } from '../reporting/request/report-query';
import { DISTINCT_SKETCH } from '../sketches/distinct-sketch';
import type { EventDocument } from '../storage/event-document';
import { randomReportBody } from '../../test/support/random-report';
import { eventsByRow, rowKey } from '../../test/support/report-truth';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';

// Distinct visitors from the planned path (rollup cells merged with raw parts) against the true
// distinct count of the events themselves, computed here without the report code: equal whenever
// the answer says exact, within 3 standard errors otherwise. Enough visitors that the larger rows
// pass the exact limit (sketches), while grouped and short rows stay exact.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const QUERIES = Number(process.env.REPORT_DIFF_QUERIES ?? 150);
const FROM = Date.parse('2026-10-23T00:00:00Z');
const TO = Date.parse('2026-10-27T00:00:00Z'); // the European DST change inside
const VISITORS = 200_000;
const EVENTS = 60_000;
const caller: ApiKeyPrincipal = { id: 'uniques', ownerIds: new Set(OWNERS) };
const random = prng(SEED);

let f: RollupFixture;
let events: EventDocument[];

beforeAll(async () => {
  f = await startRollupFixture();
  const pool = Array.from({ length: VISITORS }, () => Math.floor(random() * 2 ** 52));
  events = randomEvents(random, EVENTS, FROM, TO).map((e) => ({
    ...e,
    // one owner's events over a large pool (sketches where a row has most of them), the other's over a small one (exact)
    visitor: e.owner_id === OWNERS[0] ? pool[Math.floor(random() * VISITORS)]! : pool[Math.floor(random() * 300)]!,
  }));
  await f.write(events, 1000);
  await f.builder().runOnce();
  // late events into built hours: their units are dirty, so reports read them raw beside the cells
  const late = randomEvents(random, 30, FROM, TO).map((e) => ({ ...e, visitor: Math.floor(random() * 2 ** 52) }));
  await f.write(late, 10);
  events.push(...late);
}, 240_000);
afterAll(async () => {
  await f.stop();
});

/** Reports over the whole window first: their rows are the ones past the exact limit. */
const FIXED: Array<Record<string, unknown>> = [
  { owner_id: OWNERS[0], created__gte: '2026-10-22', created__lte: '2026-10-27' },
  { owner_id: OWNERS[0], created__gte: '2026-10-23 00:00:01', created__lte: '2026-10-26 23:00:00' },
  { owner_id: OWNERS[0], created__gte: '2026-10-23', created__lte: '2026-10-26', timezone: 'Asia/Kolkata' },
  { owner_id: OWNERS[0], created__gte: '2026-10-22', created__lte: '2026-10-27', device_type: ['mobile', 'desktop'] },
  {
    owner_id: OWNERS[0],
    created__gte: '2026-10-22',
    created__lte: '2026-10-27',
    interval: 'week',
    timezone: 'Europe/Berlin',
    order_by: 'uniques',
  },
];

/** The true distinct visitors of each row the query defines, keyed like rowKey. */
function truth(query: ReportQuery): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const [key, rowEvents] of eventsByRow(events, query))
    out.set(key, new Set(rowEvents.flatMap((e) => (e.visitor === undefined ? [] : [e.visitor]))));
  return out;
}

describe(`distinct visitors from rollups vs the events themselves (seed ${SEED}, REPORT_DIFF_SEED reproduces)`, () => {
  test('when random reports ask for uniques, then exact answers equal the true distinct count and the others are within 3 standard errors', async () => {
    const sigma = DISTINCT_SKETCH.relativeStandardError;
    let exactRows = 0;
    let approximateRows = 0;
    let worst = 0;
    for (let i = 0; i < QUERIES; i++) {
      const body: Record<string, unknown> = {
        ...(FIXED[i] ?? randomReportBody(random, FROM - 86_400_000, TO + 86_400_000)),
        metrics: ['count', 'uniques'],
      };
      delete body.limit; // every row is compared (top-N keeps a subset whose truth is the same)
      delete body.fill_zeros;
      delete body.conversion; // only with its metric, which this test does not ask for
      if (!['value', 'name', 'uniques'].includes(String(body.order_by))) delete body.order_by;
      const query = parseReportRequest(body, { maxRangeDays: 400 });
      const rows = (await f.rolled.report(caller, body)) as ReportRow[];
      const expected = truth(query);
      expect(rows.length).toBe(expected.size);
      for (const row of rows) {
        const visitors = expected.get(rowKey(row, query.groupBy));
        const where = `seed ${SEED}, query ${i} ${JSON.stringify(body)}, row ${JSON.stringify(row)}`;
        if (!visitors) throw new Error(`${where}: no such row in the events`);
        if (row.uniques_exact) {
          exactRows++;
          if (row.uniques !== visitors.size) throw new Error(`${where}: exact ${row.uniques}, true ${visitors.size}`);
        } else {
          approximateRows++;
          const error = Math.abs(Number(row.uniques) - visitors.size) / visitors.size;
          worst = Math.max(worst, error);
          if (error > 3 * sigma) throw new Error(`${where}: ${row.uniques} vs true ${visitors.size} (${error})`);
          expect(visitors.size).toBeGreaterThan(DISTINCT_SKETCH.exactLimit);
        }
      }
    }
    // both regimes were really exercised, and rollups answered parts of the reports
    expect(exactRows).toBeGreaterThan(QUERIES);
    expect(approximateRows).toBeGreaterThan(QUERIES / 20);
    expect(f.usage.rollupUnits).toBeGreaterThan(QUERIES);
    expect(f.usage.rawParts).toBeGreaterThan(0);
    expect(worst).toBeLessThan(3 * sigma);
  }, 240_000);
});
