import type { EventRecord } from '@cm/contracts';
import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../../../test/support/events-harness';

// The country floor through the running service: the same audience (many countries, a few
// visitors each) published to JetStream twice, into a past day the rollup role builds and into
// today (a range inside today is read from raw events), reported over HTTP with the default
// REPORT_COUNTRY_FLOOR. Both answers must be the folded answer this file computes from the audience.
const FLOOR = 10;
const DAY = 86_400_000;
let h: EventsHarness;
let owner: string;
let key: string;

/** [country (undefined: unknown), visitors, of whom clickers]: one large country, two at the floor's edge, a long tail. */
const AUDIENCE: Array<[string | undefined, number, number]> = [
  ['US', 14, 11],
  ['FR', 10, 2], // exactly the floor: its impressions show, its two clickers fold
  ['DE', 9, 0],
  ...['JP', 'BR', 'CA', 'IN', 'NG', 'XK', 'MX', 'AR', 'ZA', 'EG', 'KE', 'SE', 'NO', 'FI', 'PL', 'PT', 'ES', 'IT'].map(
    (c, i): [string, number, number] => [c, 1 + (i % 3), i % 4 === 0 ? 1 : 0],
  ),
  [undefined, 3, 1],
];

/** Every event of the audience at `at(i)`: 1..3 impressions per visitor, one click per clicker. */
function audienceEvents(at: (i: number) => number): Array<Partial<EventRecord> & { owner_id: string }> {
  const out: Array<Partial<EventRecord> & { owner_id: string }> = [];
  let visitor = 0;
  for (const [country, visitors, clickers] of AUDIENCE) {
    for (let v = 0; v < visitors; v++, visitor++) {
      const names = [
        ...Array.from({ length: 1 + (visitor % 3) }, () => 'impression'),
        ...(v < clickers ? ['click'] : []),
      ];
      for (const name of names)
        out.push({
          owner_id: owner,
          name,
          url: 'https://news.example/world/2026/11/story',
          content_id: 'story-1',
          device_type: visitor % 4 === 0 ? 'mobile' : 'desktop',
          created: new Date(at(out.length)).toISOString(),
          visitor: 4_000_000_000_000 + visitor * 7_919,
          ...(country ? { country } : {}),
        });
    }
  }
  return out;
}

/** Per name and shown country: events and distinct visitors, countries under the floor folded (the rule, computed here). */
function foldedTruth(events: ReturnType<typeof audienceEvents>): Map<string, { value: number; visitors: Set<number> }> {
  const byRow = new Map<string, { value: number; visitors: Set<number> }>();
  const row = (name: string, country: string) => {
    const k = `${name} ${country}`;
    let r = byRow.get(k);
    if (!r) byRow.set(k, (r = { value: 0, visitors: new Set() }));
    return r;
  };
  for (const e of events) {
    const r = row(e.name!, e.country ?? 'unknown');
    r.value++;
    r.visitors.add(e.visitor!);
  }
  const out = new Map<string, { value: number; visitors: Set<number> }>();
  for (const [k, r] of byRow) {
    const [name, country] = k.split(' ') as [string, string];
    const shown = country === 'unknown' || r.visitors.size >= FLOOR ? country : 'below_floor';
    const into = out.get(`${name} ${shown}`) ?? { value: 0, visitors: new Set<number>() };
    into.value += r.value;
    for (const v of r.visitors) into.visitors.add(v);
    out.set(`${name} ${shown}`, into);
  }
  return out;
}

async function publish(events: ReturnType<typeof audienceEvents>): Promise<void> {
  for (let i = 0; i < events.length; i += 100) await h.publishBatch(events.slice(i, i + 100));
}

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

async function report(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${h.baseUrl}/api/v1/events/?api_key=${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ owner_id: owner, ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Array<Record<string, unknown>>;
}

async function planParts(source: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('events_report_plan_parts_total{') && l.includes(`source="${source}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const spec = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', ' ');

const QUERIES: Array<[string, Record<string, unknown>]> = [
  ['grouped by country', { group_by: 'country', metrics: 'count,uniques' }],
  // the visitors of one device: the floor reads the per-device visitor marks of the pages
  ['mobile only, count only', { group_by: 'country', device_type: 'mobile' }],
  ['top 2 countries', { group_by: 'country', limit: 2 }],
  [
    'a conversion rate per country',
    { group_by: 'country', metrics: 'count,conversion_rate', conversion: { from: 'impression', to: 'click' } },
  ],
  ['filtered by two countries', { country: ['fr', 'DE'], metrics: 'count,uniques' }],
];

beforeAll(async () => {
  h = await startEventsHarness({ ROLLUP_GRACE_MS: '0', ROLLUP_INTERVAL_MS: '100' });
  owner = newOwnerId();
  key = (await admin('POST', '/admin/v1/api-keys', { owner_ids: [owner] })).api_key;
});
afterAll(async () => {
  await h.stop();
});

describe('the country floor from rollups and from raw events', () => {
  test('when many countries have a few visitors each, then a past day (rollups) and a range inside today (raw) give the same folded answer', async () => {
    expect(h.config.REPORT_COUNTRY_FLOOR).toBe(FLOOR);
    const pastStart = Math.floor(Date.now() / DAY) * DAY - 3 * DAY + 9 * 3_600_000;
    const past = audienceEvents((i) => pastStart + i * 37_000);
    await publish(past);
    await h.waitForStored(past.length, { owner_id: owner }, 20_000);
    await waitUntil(
      async () => {
        const { dirty_units: d, pending_generations: pending } = await admin('GET', '/admin/v1/rollups');
        return pending === 0 && ['1h', '4h', '1d'].every((level) => d[level] === 0);
      },
      30_000,
      'the past day rolled up',
    );
    const now = Date.now();
    const today = audienceEvents((i) => now - 30_000 + i * 10);
    await publish(today);
    await h.waitForStored(past.length + today.length, { owner_id: owner }, 20_000);

    const pastDay = new Date(pastStart).toISOString().slice(0, 10);
    const insideToday = { created__gte: spec(now - 60_000), created__lte: spec(now + 60_000) };
    for (const [what, body] of QUERIES) {
      const rolledBefore = await planParts('rollup');
      const fromRollups = await report({ ...body, created__gte: pastDay, created__lte: pastDay });
      expect({ what, rollupParts: (await planParts('rollup')) > rolledBefore }).toEqual({ what, rollupParts: true });
      const rawBefore = await planParts('raw');
      const fromRaw = await report({ ...body, ...insideToday });
      expect({ what, rawParts: (await planParts('raw')) > rawBefore }).toEqual({ what, rawParts: true });
      expect({ what, rows: fromRaw }).toEqual({ what, rows: fromRollups });
    }

    // and that answer is the rule applied to the audience: every shown country has at least FLOOR visitors
    const truth = foldedTruth(past);
    const grouped = await report({ ...QUERIES[0]![1], ...insideToday });
    expect(grouped).toEqual(
      [...truth.entries()]
        .map(([k, r]) => {
          const [name, country] = k.split(' ') as [string, string];
          return { name, country, value: r.value, uniques: r.visitors.size, uniques_exact: true };
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || storedOrder(a.country, b.country)),
    );
    expect(grouped.map((r) => `${r.name} ${r.country}`)).toEqual([
      'click unknown',
      'click US',
      'click below_floor',
      'impression unknown',
      'impression FR',
      'impression US',
      'impression below_floor',
    ]);
    const total = (rows: Array<Record<string, unknown>>) => rows.reduce((s, r) => s + Number(r.value ?? 0), 0);
    expect(total(grouped)).toBe(today.length);
    expect(total(await report({ ...insideToday }))).toBe(today.length);

    // filtered by FR and DE without grouping by country: 19 impression visitors show, their 2 clickers are withheld
    expect(await report({ ...QUERIES[4]![1], ...insideToday })).toEqual([
      { name: 'click', value: null, uniques: null, uniques_exact: null, below_floor: true },
      {
        name: 'impression',
        value: today.filter((e) => e.name === 'impression' && ['FR', 'DE'].includes(e.country!)).length,
        uniques: 19,
        uniques_exact: true,
      },
    ]);
  }, 90_000);
});

/** Rows sort by stored values: unknown is "" (first), below_floor after the upper-case codes. */
function storedOrder(a: string, b: string): number {
  const stored = (c: string) => (c === 'unknown' ? '' : c);
  return stored(a) < stored(b) ? -1 : stored(a) > stored(b) ? 1 : 0;
}
