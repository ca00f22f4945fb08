import path from 'node:path';
import { OpenApiContract, docsPageProblems } from '@cm/testkit';
import {
  BROWSER_UA as BROWSER,
  TEST_ADMIN_TOKEN,
  startEventsHarness,
  type EventsHarness,
} from '../test/support/events-harness';

/**
 * Every documented operation is called with good and bad input, and every live response is
 * checked against services/events/openapi.yaml (status documented, body matches the schema).
 */
const contract = new OpenApiContract(path.join(__dirname, '..', 'openapi.yaml'));
const problems: string[] = [];
let h: EventsHarness;

async function call(method: string, url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.baseUrl}${url}`, { method, redirect: 'manual', ...init });
  const type = res.headers.get('content-type');
  const text = await res.text();
  const body = type?.includes('json') && text ? JSON.parse(text) : text;
  problems.push(...contract.check(method, url, { status: res.status, contentType: type, body }));
  return { status: res.status, body };
}

const json = (body: unknown, token?: string): RequestInit => ({
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const admin = { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } };

beforeAll(async () => {
  h = await startEventsHarness();
});
afterAll(async () => {
  await h.stop();
});

test('when every documented operation is called, then every response matches the OpenAPI document', async () => {
  const owner = await h.registerOwner(undefined, ['example.com']);
  const ua = { headers: { 'user-agent': BROWSER } };
  // pixel
  await call('GET', `/v1/v.gif?owner_id=${owner}&name=impression&content_id=c1&campaign=spring`, ua);
  await call(
    'GET',
    `/v1/v.gif?owner_id=${owner}&name=click&r=${encodeURIComponent('https://example.com/landing')}`,
    ua,
  );
  await call('GET', '/v1/v.gif?name=impression');
  await call('GET', `/v1/v.gif?owner_id=${owner}&name=click&r=javascript:alert(1)`);
  await call('GET', `/v1/v.gif?owner_id=${owner}&name=click&r=${encodeURIComponent('https://not-allowed.example/')}`);
  await call('GET', `/v1/v.gif?name=click&r=${encodeURIComponent('https://example.com/landing')}`, ua);
  await call('POST', '/v1/v.gif', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER },
    body: `owner_id=${owner}&name=impression`,
  });
  await call('POST', '/v1/v.gif', { headers: { 'content-type': 'application/json' }, body: '{}' });
  await call('OPTIONS', '/v1/v.gif');
  await h.waitForStored(3, { owner_id: owner });

  // API keys
  const key = (await call('POST', '/admin/v1/api-keys', json({ owner_ids: [owner] }, TEST_ADMIN_TOKEN))).body;
  await call('POST', '/admin/v1/api-keys', json({ owner_ids: ['not digits'] }, TEST_ADMIN_TOKEN));
  await call('POST', '/admin/v1/api-keys', json({ owner_ids: [owner] }));
  await call('GET', '/admin/v1/api-keys', admin);
  await call('GET', '/admin/v1/api-keys');

  // reports
  const report = `/api/v1/events/?api_key=${key.api_key}`;
  const rows = (await call('POST', report, json({ owner_id: owner, group_by: 'content_id', metadata: 'campaign' })))
    .body;
  expect(rows.length).toBeGreaterThan(0);
  await call('POST', report, json({ owner_id: owner }));
  await call('POST', report, json({ owner_id: owner, created__gte: 'yesterday' }));
  await call('POST', report, json({ owner_id: '42' }));
  await call('POST', '/api/v1/events/?api_key=ek_unknown', json({ owner_id: owner }));
  await call('POST', report, { headers: { 'content-type': 'text/plain' }, body: 'owner_id=1' });
  const today = new Date().toISOString().slice(0, 10);
  // today's UTC date in Kolkata may hold none of the events just sent (after 18:30 UTC they fall on
  // its next day): a named series is filled in every hour all the same
  const series = (
    await call(
      'POST',
      report,
      json({
        owner_id: owner,
        name: 'impression',
        created__gte: today,
        created__lte: today,
        interval: 'hour',
        timezone: 'Asia/Kolkata',
        fill_zeros: true,
      }),
    )
  ).body;
  expect(series).toHaveLength(24);
  expect(series[0].time).toMatch(/\+05:30$/);
  await call('POST', report, json({ owner_id: owner, group_by: 'content_id', limit: 1, order_by: 'value' }));
  await call('POST', report, json({ owner_id: owner, interval: 'fortnight', timezone: 'Mars/Olympus' }));
  // the country floor's shapes: a folded below_floor country, and a withheld row (null numbers)
  await h.publishEvent({ owner_id: owner, name: 'impression', country: 'FR', visitor: 4_242 });
  await h.waitForStored(1, { owner_id: owner, country: 'FR' });
  const floor = { owner_id: owner, metrics: 'count,uniques,value_sum,frequency', metadata: 'campaign' };
  const folded = (await call('POST', report, json({ ...floor, group_by: 'country' }))).body;
  expect(folded.map((r: { country: string }) => r.country)).toContain('below_floor');
  const withheld = (await call('POST', report, json({ ...floor, country: 'fr', name: 'impression' }))).body;
  expect(withheld).toMatchObject([{ value: null, uniques: null, reach_1: null, below_floor: true }]);
  await call('POST', report, json({ owner_id: owner, country: ['FR', 'Germany'] }));

  // a campaign (as management publishes it) with an impression on its page: its report and its scorecard
  const page = 'https://example.com/autumn/looks';
  await call(
    'GET',
    `/v1/v.gif?owner_id=${owner}&name=impression&url=${encodeURIComponent(`${page}?utm_source=x`)}`,
    ua,
  );
  await h.waitForStored(1, { owner_id: owner, url: page });
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  await h.publishCampaign({
    token: 'contract-campaign',
    owner_id: owner,
    revision: 1,
    name: 'Contract',
    urls: [page],
    start_date: day(-1),
    end_date: day(1),
    timezone: 'UTC',
    reach: 10,
    objective: 'Reach',
    target_countries: ['DE'],
    target_source: 'campaign',
  });
  await call('POST', report, json({ owner_id: owner, campaign: 'contract-campaign', interval: 'day' }));
  await call('POST', report, json({ owner_id: owner, campaign: 'no-such-campaign' }));
  const scorecard = `/api/v1/events/scorecard/?api_key=${key.api_key}`;
  const card = (await call('POST', scorecard, json({ owner_id: owner, campaign: 'contract-campaign' }))).body;
  expect(card).toMatchObject({ impressions: 1, reach: { value: 1, exact: true } });
  await call('POST', scorecard, json({ owner_id: owner, campaign: { $gt: '' } }));
  await call('POST', scorecard, json({ owner_id: '42', campaign: 'contract-campaign' }));
  await call('POST', '/api/v1/events/scorecard/?api_key=ek_unknown', json({ owner_id: owner, campaign: 'x' }));
  await call('POST', scorecard, { headers: { 'content-type': 'text/plain' }, body: 'campaign=x' });

  await call('GET', '/admin/v1/rollups', admin);
  await call('GET', '/admin/v1/rollups');
  await call('POST', '/admin/v1/rollups/rebuild', json({ from: today, to: today }, TEST_ADMIN_TOKEN));
  await call('POST', '/admin/v1/rollups/rebuild', json({ from: 'today' }, TEST_ADMIN_TOKEN));

  // operator
  await call('GET', '/admin/v1/pipeline', admin);
  await call('GET', '/admin/v1/pipeline');
  await call('POST', '/admin/v1/retention/run', json({ dry_run: true }, TEST_ADMIN_TOKEN));
  await call('POST', '/admin/v1/retention/run', json({ dry_run: 'maybe' }, TEST_ADMIN_TOKEN));
  await call('POST', '/admin/v1/retention/run', json({}));

  await call('DELETE', `/admin/v1/api-keys/${key.id}`, admin);
  await call('DELETE', `/admin/v1/api-keys/${key.id}`, admin);
  await call('DELETE', `/admin/v1/api-keys/${key.id}`);

  await call('GET', '/healthz');
  await call('GET', '/readyz');
  await call('GET', '/metrics');

  expect(problems).toEqual([]);
  expect(contract.uncovered()).toEqual([]);
});

test('when /docs is opened, then the reference page, its assets and the document are served locally', async () => {
  expect(await docsPageProblems(h.baseUrl)).toEqual([]);
  const doc = (await (await fetch(`${h.baseUrl}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/v1/v.gif', '/api/v1/events/', '/api/v1/events/scorecard/']),
  );
});
