import { MEASURE_NAMES, type MeasureName } from '@cm/contracts';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import type { ReportRow } from '../reporting/read/report-row';
import { parseReportRequest } from '../reporting/request/parse-report-request';
import { QUANTILE_SKETCH } from '../sketches/quantile-sketch';
import type { EventDocument } from '../storage/event-document';
import { randomReportBody } from '../../test/support/random-report';
import { eventsByRow, rowKey } from '../../test/support/report-truth';
import { OWNERS, prng, randomEvents, startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';

// Sums, averages, percentiles and shares from the planned path (rollup cells merged with raw
// parts: late events in built hours, range edges, half-hour zones) against the events themselves,
// computed here without the report code: sums and averages equal, percentiles within the sketch's
// relative accuracy of the exact order statistics, shares within the values that close to the
// threshold.
const SEED = Number(process.env.REPORT_DIFF_SEED ?? Date.now() % 1_000_000);
const QUERIES = Number(process.env.REPORT_DIFF_QUERIES ?? 120);
const FROM = Date.parse('2026-10-23T00:00:00Z');
const TO = Date.parse('2026-10-27T00:00:00Z'); // the European DST change inside
const EVENTS = 20_000;
const METRICS = [
  'count',
  ...MEASURE_NAMES.flatMap((m) => [`${m}_sum`, `${m}_avg`, `${m}_p50`, `${m}_p90`, `${m}_p99`]),
  'engaged_ms_gte_10000',
  // above every generated engaged time: a share the sketch knows exactly (0)
  'engaged_ms_gte_600000',
  'scroll_depth_gte_50',
  'value_gte_1',
];
const caller: ApiKeyPrincipal = { id: 'measures', ownerIds: new Set(OWNERS) };
const random = prng(SEED);
const alpha = QUANTILE_SKETCH.relativeAccuracy;

let f: RollupFixture;
let events: EventDocument[];

beforeAll(async () => {
  f = await startRollupFixture();
  events = randomEvents(random, EVENTS, FROM, TO);
  await f.write(events, 1000);
  await f.builder().runOnce();
  // late events into built hours: their units are dirty, so reports read them raw beside the cells
  const late = randomEvents(random, 60, FROM, TO);
  await f.write(late, 10);
  events.push(...late);
}, 240_000);
afterAll(async () => {
  await f.stop();
});

/** The values of one measure among a row's events, sorted. */
function valuesOf(rowEvents: readonly EventDocument[], measure: MeasureName): number[] {
  return rowEvents
    .flatMap((e) => (e.measures?.[measure] === undefined ? [] : [e.measures[measure]!]))
    .sort((a, b) => a - b);
}

/** Why `got` is not an acceptable answer for `metric` over `values` (undefined when it is); `exact`: the row says so. */
function checkMetric(metric: string, got: unknown, values: readonly number[], exact: unknown): string | undefined {
  const [, stat = '', , arg] = /_(sum|avg|p(\d+)|gte_(\d+))$/.exec(metric)!;
  const n = values.length;
  const exactSum = values.reduce((a, b) => a + BigInt(b), 0n);
  // a JSON number up to 2^53 - 1, the decimal digits beyond
  const sumAnswer = exactSum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exactSum) : exactSum.toString();
  const sum = Number(exactSum);
  if (stat === 'sum') return got === sumAnswer ? undefined : `sum ${String(got)}, true ${sumAnswer}`;
  if (stat === 'avg') return got === (n === 0 ? null : sum / n) ? undefined : `avg ${String(got)}, true ${sum / n}`;
  if (n === 0) return got === null ? undefined : `${String(got)} without values`;
  if (typeof got !== 'number') return `not a number: ${String(got)}`;
  if (stat.startsWith('p')) {
    // the exact rank-q value, under either rank convention, widened by the relative accuracy
    const q = Number(stat.slice(1)) / 100;
    // claimed exact: the nearest-rank value itself
    const nearest = values[Math.max(0, Math.ceil(q * n) - 1)]!;
    if (exact === true) return got === nearest ? undefined : `p${stat.slice(1)} ${got} claimed exact, true ${nearest}`;
    const lo = values[Math.floor(q * (n - 1))]!;
    const hi = values[Math.ceil(q * (n - 1))]!;
    return got >= lo * (1 - alpha) - 1e-6 && got <= hi * (1 + alpha) + 1e-6
      ? undefined
      : `p${stat.slice(1)} ${got}, exact between ${lo} and ${hi}`;
  }
  // a value within the relative accuracy of the threshold may count on either side
  const t = Number(arg);
  if (exact === true) {
    const share = values.filter((v) => v >= t).length / n;
    return got === share ? undefined : `share ${got} claimed exact, true ${share}`;
  }
  const surely = values.filter((v) => v >= t / (1 - alpha)).length / n;
  const maybe = values.filter((v) => v >= t / (1 + alpha)).length / n;
  return got >= surely - 1e-12 && got <= maybe + 1e-12
    ? undefined
    : `share ${got}, exact between ${surely} and ${maybe}`;
}

describe(`measures from rollups vs the events themselves (seed ${SEED}, REPORT_DIFF_SEED reproduces)`, () => {
  test('when random reports ask for sums, averages, percentiles and shares, then sums and averages are exact and the others within the stated accuracy', async () => {
    let compared = 0;
    let withValues = 0;
    let exactClaims = 0;
    let exactAbove128 = 0;
    for (let i = 0; i < QUERIES; i++) {
      const body: Record<string, unknown> = {
        ...randomReportBody(random, FROM - 86_400_000, TO + 86_400_000),
        metrics: METRICS,
      };
      delete body.limit; // every row is compared
      delete body.order_by;
      delete body.fill_zeros;
      delete body.conversion;
      const query = parseReportRequest(body, { maxRangeDays: 400 });
      const rows = (await f.rolled.report(caller, body)) as ReportRow[];
      const expected = eventsByRow(events, query);
      expect(rows.length).toBe(expected.size);
      for (const row of rows) {
        const rowEvents = expected.get(rowKey(row, query.groupBy));
        const where = `seed ${SEED}, query ${i} ${JSON.stringify(body)}, row ${JSON.stringify(row)}`;
        if (!rowEvents) throw new Error(`${where}: no such row in the events`);
        for (const metric of METRICS.slice(1)) {
          const measure = MEASURE_NAMES.find((m) => metric.startsWith(`${m}_`))!;
          const values = valuesOf(rowEvents, measure);
          const wrong = checkMetric(metric, row[metric], values, row[`${metric}_exact`]);
          if (row[`${metric}_exact`] === true) {
            exactClaims++;
            if (typeof row[metric] === 'number' && (row[metric] as number) > QUANTILE_SKETCH.exactUpTo) exactAbove128++;
          }
          if (wrong) throw new Error(`${where}: ${metric}: ${wrong}`);
          compared++;
          if (values.length > 0) withValues++;
        }
      }
    }
    // the measures were really there, and rollups answered parts of the reports
    expect(withValues).toBeGreaterThan(compared / 4);
    expect(exactClaims).toBeGreaterThan(QUERIES); // scroll depths and shares at 50 are exact, and were checked so
    // rows of one value, and the min and max, are exact above the exact bins too, and were checked as such
    expect(exactAbove128).toBeGreaterThan(0);
    expect(f.usage.rollupUnits).toBeGreaterThan(QUERIES / 2);
    expect(f.usage.rawParts).toBeGreaterThan(0);
  }, 240_000);
});
