import { httpRequester, startMongoStandIn, type HttpResult, type LocalServer } from '@cm/testkit';
import {
  TEST_ADMIN_TOKEN,
  newOwnerId,
  startEventsHarness,
  waitUntil,
  type EventsHarness,
} from '../support/events-harness';

// its own stand-in, stopped under the running service; short timeouts so a request fails in about a second
let mongo: LocalServer;
let h: EventsHarness;
const owner = newOwnerId();
let apiKey: string;

const request = (method: string, path: string, body?: unknown, token?: string) =>
  httpRequester(h.baseUrl)(method, path, { body, token });
const report = (key: string) => request('POST', `/api/v1/events/?api_key=${key}`, { owner_id: owner });
const createKey = () => request('POST', '/admin/v1/api-keys', { owner_ids: [owner] }, TEST_ADMIN_TOKEN);

function expectUnavailable(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 503,
    body: { error: { code: 'unavailable', message: expect.any(String) } },
  });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  mongo = await startMongoStandIn();
  h = await startEventsHarness({ MONGO_URL: `${mongo.url}/?serverSelectionTimeoutMS=1000&connectTimeoutMS=1000` });
  const created = await createKey();
  expect(created.status).toBe(201);
  apiKey = created.body.api_key;
}, 90_000);
afterAll(async () => {
  await h.stop();
  await mongo.stop();
});

describe('when the database is unreachable under a running events service', () => {
  test('then reports, key lookups and admin reads and writes answer 503 with Retry-After, and work again once it is back', async () => {
    expect((await report(apiKey)).status).toBe(200); // the key is now cached: its report reaches the counting

    await mongo.stop();
    expectUnavailable(await report(apiKey));
    expectUnavailable(await report(`ek_${'B'.repeat(43)}`)); // a key not cached: its lookup needs the database
    expectUnavailable(await request('GET', '/admin/v1/api-keys', undefined, TEST_ADMIN_TOKEN));
    expectUnavailable(await createKey());

    mongo = await startMongoStandIn({ port: mongo.port });
    // the stand-in comes back empty: a new key, then its report
    let created: HttpResult | undefined;
    await waitUntil(
      async () => (created = await createKey()).status === 201,
      30_000,
      'a key created after the database returned',
    );
    const again = await report(created!.body.api_key);
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: [] });
  }, 90_000);
});
