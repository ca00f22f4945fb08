import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer, type LocalServer } from '@cm/testkit';
import { SIGNAL_WAIT_MS, startEventsHarness, waitUntil, type EventsHarness } from '../support/events-harness';

// this file runs its own nats-server so that it can stop and restart it
let nats: LocalServer;
let storeDir: string;
let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'events-broker-down-'));
  nats = await startNatsServer({ storeDir });
  // a publish may wait this long (for the hit before the outage too): then the outage is known and
  // hits are refused before any publish (pixel-ingest.test.ts shows the refusal touches no broker)
  h = await startEventsHarness({ NATS_URL: nats.url, PUBLISH_TIMEOUT_MS: '5000' });
  owner = await h.registerOwner(undefined, ['dest.example']);
});
afterAll(async () => {
  await h.stop();
  await nats.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

describe('when the broker is down', () => {
  test('then the pixel answers 503, r still redirects, readiness fails; after the broker returns, events are stored again', async () => {
    const before = await h.pixel({ owner_id: owner, name: 'impression', content_id: 'before' });
    expect(before.status).toBe(200);
    await h.waitForStored(1, { content_id: 'before' });

    await nats.stop();
    await waitUntil(
      async () => (await h.pixel({ owner_id: owner, name: 'impression', content_id: 'probe' })).status === 503,
      SIGNAL_WAIT_MS,
      'the pixel to notice the outage',
    );

    const down = await h.pixel({ owner_id: owner, name: 'impression', content_id: 'during' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.json()).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });

    const click = await h.pixel({
      owner_id: owner,
      name: 'click',
      content_id: 'during',
      r: 'https://dest.example/landing',
    });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://dest.example/landing');

    // an unknown owner gets the same 503, so an outage does not reveal who is registered
    expect((await h.pixel({ owner_id: '999999999', name: 'impression' })).status).toBe(503);
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(503);
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);

    nats = await startNatsServer({ port: nats.port, storeDir });
    await waitUntil(
      async () => (await h.pixel({ owner_id: owner, name: 'impression', content_id: 'after' })).status === 200,
      SIGNAL_WAIT_MS,
      'the pixel to recover',
    );
    await h.waitForStored(1, { content_id: 'after' });
    expect(await h.storedEvents({ content_id: 'during' })).toEqual([]);
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(200);
  }, 120_000);
});
