import path from 'node:path';
import { v7 } from 'uuid';
import { OpenApiContract } from '@cm/testkit';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import type { ReportRow } from '../reporting/read/report-row';
import type { EventDocument } from '../storage/event-document';
import { startRollupFixture, type RollupFixture } from '../../test/support/rollup-fixture';

// Sums of `value` past 2^53 (about 9,008 hits at the largest value, 10^12 cents) stay exact from
// rollup cells and from raw events alike, and are answered as decimal strings once a JSON number
// could not hold them.
const OWNER = '8001';
const CHECKOUT = 'https://shop.example/checkout?utm_source=mail&gclid=EAIaIQobChMI';
const GIFT = 'https://xn--bcher-kva.example/gift#card';
const DAY1 = Date.parse('2026-10-23T00:00:00Z');
const DAY2 = Date.parse('2026-10-24T00:00:00Z');
const PER_DAY = 6_000; // 6,000 x ~10^12 is below 2^53; both days together are not
const caller: ApiKeyPrincipal = { id: 'sums', ownerIds: new Set([OWNER]) };
const contract = new OpenApiContract(path.join(__dirname, '..', '..', 'openapi.yaml'));

let f: RollupFixture;
const expected = { day1: 0n, day2: 0n, gift: 0n };

function purchase(t: number, url: string, value: number, i: number): EventDocument {
  return {
    _id: v7({ msecs: t, random: Uint8Array.from({ length: 16 }, (_, k) => (i * 31 + k * 7) % 256) }),
    owner_id: OWNER,
    name: 'purchase',
    url,
    content_id: 'basket',
    device_type: (['desktop', 'tablet', 'mobile'] as const)[i % 3]!,
    bot: false,
    metadata: {},
    created: new Date(t),
    measures: { value },
  };
}

beforeAll(async () => {
  f = await startRollupFixture();
  const events: EventDocument[] = [];
  for (const [day, key] of [
    [DAY1, 'day1'],
    [DAY2, 'day2'],
  ] as const) {
    for (let i = 0; i < PER_DAY; i++) {
      // the largest value less a little, so the low digits of the sum are not all zeros
      const value = 1_000_000_000_000 - (i % 7);
      events.push(purchase(day + Math.floor((i * 86_400_000) / PER_DAY), CHECKOUT, value, i));
      expected[key] += BigInt(value);
    }
  }
  events.push(purchase(DAY2 + 3_600_000, GIFT, 2_500, 1), purchase(DAY2 + 7_200_000, GIFT, 1, 2));
  expected.gift = 2_501n;
  await f.write(events, 1000);
  await f.builder().runOnce();
}, 240_000);
afterAll(async () => {
  await f.stop();
});

const body = (extra: Record<string, unknown>) => ({
  owner_id: OWNER,
  name: 'purchase',
  created__gte: '2026-10-23 00:00:00',
  created__lte: '2026-10-24 23:59:59',
  metrics: 'count,value_sum,value_avg',
  ...extra,
});

async function both(extra: Record<string, unknown>): Promise<ReportRow[]> {
  const rolled = (await f.rolled.report(caller, body(extra))) as ReportRow[];
  const raw = (await f.raw.report(caller, body(extra))) as ReportRow[];
  expect(rolled).toEqual(raw);
  // the answer as the API documents it, a sum past 2^53 included
  const response = { status: 200, contentType: 'application/json', body: JSON.parse(JSON.stringify(rolled)) };
  expect(contract.check('POST', '/api/v1/events/', response)).toEqual([]);
  return rolled;
}

describe('value sums past 2^53', () => {
  test('when a row sums more than 2^53, then rollups and raw events both answer the exact sum, as a decimal string', async () => {
    const before = f.usage.rollupUnits;
    const [row] = await both({});
    expect(f.usage.rollupUnits).toBeGreaterThan(before);
    const total = expected.day1 + expected.day2 + expected.gift;
    expect(total).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(row).toEqual({
      name: 'purchase',
      value: 2 * PER_DAY + 2,
      value_sum: total.toString(),
      value_avg: expect.any(Number),
    });
    // the quotient of the exact sum, to the precision of a double near 10^12
    expect(row!.value_avg).toBeCloseTo(Number(total) / (2 * PER_DAY + 2), 3);
  });

  test('when each day sums less than 2^53, then its row answers a JSON number, exact, while the whole range is a string', async () => {
    const rows = await both({ interval: 'day' });
    expect(rows.map((r) => r.value_sum)).toEqual([Number(expected.day1), Number(expected.day2 + expected.gift)]);
    expect(Number.isSafeInteger(rows[0]!.value_sum)).toBe(true);
  });

  test('when groups are ranked by a sum past 2^53, then the order is exact and the small sum stays a number', async () => {
    const rows = await both({ group_by: 'url', order_by: 'value_sum', limit: 2 });
    expect(rows.map((r) => [r.url, r.value_sum])).toEqual([
      [CHECKOUT, (expected.day1 + expected.day2).toString()],
      [GIFT, 2_501],
    ]);
  });
});
