import { startManagementHarness, type ManagementHarness } from '../../../management/test/support/management-harness';
import { uniqueName } from '@cm/testkit';
import {
  SIGNAL_WAIT_MS,
  TEST_ADMIN_TOKEN,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../support/events-harness';

// the whole path: management creates a user -> owner registry (NATS KV) -> pixel -> JetStream
// -> consumer -> day bucket -> report
let management: ManagementHarness;
let events: EventsHarness;
// each step waits for the previous service's signal (SIGNAL_WAIT_MS at most); a test makes several
jest.setTimeout(4 * SIGNAL_WAIT_MS);

beforeAll(async () => {
  const bucket = uniqueName('owners_e2e');
  management = await startManagementHarness({ OWNER_REGISTRY_BUCKET: bucket });
  events = await startEventsHarness({ OWNER_REGISTRY_BUCKET: bucket });
});
afterAll(async () => {
  await events.stop();
  await management.stop();
});

const BROWSER =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

describe('pixel to report', () => {
  // how fast the whole path is belongs to the benchmarks (`pnpm bench:pipeline`), not to this test
  test('when a user created in management hits the pixel, then the event is stored and reported', async () => {
    const owner = await management.createAccount();
    await waitUntil(
      () => events.system.owners?.has(owner.unique_id) ?? false,
      SIGNAL_WAIT_MS,
      'the new user in the events registry',
    );

    const res = await events.pixel(
      {
        owner_id: owner.unique_id,
        name: 'impression',
        content_id: 'article-1',
        url: 'https://pub.example/a',
        campaign: 'spring',
      },
      { headers: { 'user-agent': BROWSER } },
    );
    expect(res.status).toBe(200);
    const [doc] = await events.waitForStored(1, { owner_id: owner.unique_id });
    expect(doc).toMatchObject({
      name: 'impression',
      content_id: 'article-1',
      url: 'https://pub.example/a',
      device_type: 'mobile',
      bot: false,
      metadata: { campaign: 'spring' },
    });

    const key = await fetch(`${events.baseUrl}/admin/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_ids: [owner.unique_id] }),
    });
    expect(key.status).toBe(201);
    const { api_key } = (await key.json()) as { api_key: string };
    const report = await fetch(`${events.baseUrl}/api/v1/events/?api_key=${encodeURIComponent(api_key)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        owner_id: owner.unique_id,
        group_by: 'content_id',
        metadata: 'campaign',
        device_type: 'mobile',
      }),
    });
    expect(report.status).toBe(200);
    expect(await report.json()).toEqual([
      { name: 'impression', content_id: 'article-1', value: 1, metadata: { campaign: 'spring' } },
    ]);
  });

  test('when the user is deleted in management, then its later hits are no longer stored', async () => {
    const owner = await management.createAccount();
    const sub = (
      await management.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        body: { email: `e2e-${Date.now()}@example.com`, password: 'long enough pw' },
      })
    ).body;
    await waitUntil(
      () => events.system.owners?.has(sub.unique_id) ?? false,
      SIGNAL_WAIT_MS,
      'the sub-user in the events registry',
    );
    expect(
      (await management.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token })).status,
    ).toBe(204);
    await waitUntil(
      () => !(events.system.owners?.has(sub.unique_id) ?? true),
      SIGNAL_WAIT_MS,
      'the sub-user to leave the events registry',
    );
    expect((await events.pixel({ owner_id: sub.unique_id, name: 'impression' })).status).toBe(200);
    await waitUntil(
      () => events.system.owners?.has(owner.unique_id) ?? false,
      SIGNAL_WAIT_MS,
      'the owner in the events registry',
    );
    expect(await events.storedAfterMarker(owner.unique_id, { owner_id: sub.unique_id })).toEqual([]);
  });
});
