import { jetstreamManager } from '@nats-io/jetstream';
import { createLogger } from '@cm/platform';
import { startEvents, type EventsSystem } from './composition-root';
import { TEST_ADMIN_TOKEN, startEventsHarness, waitUntil, type EventsHarness } from '../test/support/events-harness';

// The harness runs all four roles; here each role runs alone in its own process-like system,
// sharing the harness's stream, bucket and database as separate containers would.
let h: EventsHarness;
const started: EventsSystem[] = [];
const logger = createLogger({ service: 'roles-test', level: 'error', silent: process.env.TEST_LOGS !== '1' });

beforeAll(async () => {
  h = await startEventsHarness();
});
afterAll(async () => {
  for (const s of started) await s.stop();
  await h.stop();
});

async function startRole(roles: string): Promise<EventsSystem> {
  const system = await startEvents({ ...h.config, EVENTS_ROLES: roles.split(',') as never }, logger, 0);
  started.push(system);
  return system;
}

describe('roles', () => {
  test('when only ingest runs, then the pixel works, reporting paths are 404 and readiness does not need MongoDB', async () => {
    const ingest = await startRole('ingest');
    const base = `http://127.0.0.1:${ingest.port}`;
    const owner = await h.registerOwner();
    await waitUntil(() => ingest.owners?.has(owner) ?? false, 5000, 'the owner in the ingest registry');
    const res = await fetch(`${base}/v1/v.gif?owner_id=${owner}&name=impression&content_id=ingest-only`);
    expect(res.status).toBe(200);
    await h.waitForStored(1, { content_id: 'ingest-only' });
    expect((await fetch(`${base}/api/v1/events/`, { method: 'POST' })).status).toBe(404);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks).toEqual({ nats: 'ok', owner_registry: 'ok' });
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });

  test('when only the consumer runs, then it serves health and metrics, the pixel path is 404, and it shares the durable', async () => {
    const consumer = await startRole('consumer');
    const base = `http://127.0.0.1:${consumer.port}`;
    expect((await fetch(`${base}/v1/v.gif?owner_id=1&name=a`)).status).toBe(404);
    expect(((await (await fetch(`${base}/readyz`)).json()) as any).checks).toEqual({ nats: 'ok', mongo: 'ok' });
    expect(await (await fetch(`${base}/metrics`)).text()).toContain('events_consumer_batch_size');
    const jsm = await jetstreamManager(h.nc);
    const consumers = [];
    for await (const c of jsm.consumers.list(h.config.EVENTS_STREAM)) consumers.push(c.name);
    expect(consumers).toEqual([h.config.CONSUMER_DURABLE]);
  });

  test('when only reporting runs, then the report endpoint answers, the pixel path is 404, and it mirrors the campaign registry (ingest does not)', async () => {
    const reporting = await startRole('reporting');
    const base = `http://127.0.0.1:${reporting.port}`;
    expect((await fetch(`${base}/v1/v.gif?owner_id=1&name=a`)).status).toBe(404);
    expect((await fetch(`${base}/api/v1/events/`, { method: 'POST' })).status).toBe(401);
    expect(((await (await fetch(`${base}/readyz`)).json()) as any).checks).toEqual({
      nats: 'ok',
      mongo: 'ok',
      campaign_registry: 'ok',
    });
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^events_campaign_registry_ready{[^}]*} 1$/m);
    expect(reporting.campaigns?.isReady()).toBe(true);
    expect(reporting.owners).toBeUndefined();
  });

  test('when only the rollup role runs, then it serves health, metrics and the operator rollup status, and no report or pixel path', async () => {
    const rollup = await startRole('rollup');
    const base = `http://127.0.0.1:${rollup.port}`;
    expect((await fetch(`${base}/v1/v.gif?owner_id=1&name=a`)).status).toBe(404);
    expect((await fetch(`${base}/api/v1/events/`, { method: 'POST' })).status).toBe(404);
    expect(((await (await fetch(`${base}/readyz`)).json()) as any).checks).toEqual({ nats: 'ok', mongo: 'ok' });
    expect(await (await fetch(`${base}/metrics`)).text()).toContain('events_rollup_lag_seconds');
    expect(
      (await fetch(`${base}/admin/v1/rollups`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).status,
    ).toBe(200);
  });
});
