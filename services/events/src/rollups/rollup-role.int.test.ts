import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../../test/support/events-harness';

// The rollup role in a running service: events published to the stream are written by the
// consumer (with write marks), built by the rollup role, and reports then read the rollups;
// the metrics and operator endpoints show it.
let h: EventsHarness;

beforeAll(async () => {
  h = await startEventsHarness({ ROLLUP_GRACE_MS: '0', ROLLUP_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await h.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(h.baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Lines of /metrics for a metric whose labels include all of `labels` (the registry adds its own). */
const metric = async (name: string, ...labels: string[]) => {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith(name) && labels.every((l) => line.includes(l)));
};

describe('rollup role', () => {
  test('when events of past hours are consumed, then the rollup role builds them and reports are answered from rollups, exactly', async () => {
    const owner = newOwnerId();
    const base = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000;
    for (let i = 0; i < 12; i++) {
      await h.publishEvent({
        owner_id: owner,
        name: i % 3 === 0 ? 'click' : 'impression',
        created: new Date(base + i * 5_400_000).toISOString(),
        metadata: { n: String(i) },
      });
    }
    await h.waitForStored(12, { owner_id: owner }, 10_000);
    // blocks reaching past now stay dirty (built once they ended); everything up to a day catches up
    const caughtUp = async () => {
      const { dirty_units: d, pending_generations: pending } = (await call('GET', '/admin/v1/rollups')).body;
      return pending === 0 && ['1h', '4h', '1d'].every((size) => d[size] === 0);
    };
    await waitUntil(caughtUp, 20_000, 'rollups to catch up');

    const key = (await call('POST', '/admin/v1/api-keys', { owner_ids: [owner] })).body.api_key as string;
    const res = await fetch(`${h.baseUrl}/api/v1/events/?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        owner_id: owner,
        metadata: 'n',
        created__gte: new Date(base).toISOString().slice(0, 10),
        created__lte: new Date(base + 86_400_000).toISOString().slice(0, 10),
      }),
    });
    expect(await res.json()).toEqual([
      { name: 'click', value: 4, metadata: { n: '9' } },
      { name: 'impression', value: 8, metadata: { n: '11' } },
    ]);
    expect((await metric('events_report_plan_parts_total', 'source="rollup"'))[0]).toMatch(/ [1-9]\d*$/);
    await waitUntil(
      async () => (await metric('events_rollup_rebuilds_total', 'level="1d"')).length > 0,
      5000,
      'the builder metrics of the last pass',
    );
    expect((await metric('events_rollup_rebuilds_total', 'level="1h"'))[0]).toMatch(/ 12$/); // 12 events 90 minutes apart: 12 distinct hours
    expect((await metric('events_rollup_dirty_hours'))[0]).toMatch(/ 0$/);
    expect((await metric('events_rollup_lag_seconds'))[0]).toMatch(/ 0$/);
  }, 60_000);

  test('when the operator rebuilds days, then bad input is a 400 naming the field and stores nothing; a good range is marked and rebuilt', async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const body of [
      {},
      { from: today },
      { from: 20261001, to: today },
      { from: { $gt: '' }, to: today },
      { from: '2026-13-01', to: today },
      { from: today, to: today, extra: 1 },
      { from: `${today} `, to: today },
    ]) {
      const res = await call('POST', '/admin/v1/rollups/rebuild', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect(
      (await call('POST', '/admin/v1/rollups/rebuild', { from: today, to: '2020-01-01' })).body.error.details[0].field,
    ).toBe('to');
    expect((await call('POST', '/admin/v1/rollups/rebuild', { from: '2020-01-01', to: '2021-12-31' })).status).toBe(
      400,
    );
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const ok = await call('POST', '/admin/v1/rollups/rebuild', { from: yesterday, to: yesterday });
    expect(ok).toEqual({ status: 200, body: { from: yesterday, to: yesterday, hours: 24 } });
    await waitUntil(
      async () => (await call('GET', '/admin/v1/rollups')).body.dirty_units['1d'] === 0,
      20_000,
      'the rebuilt day',
    );
  }, 60_000);
});
