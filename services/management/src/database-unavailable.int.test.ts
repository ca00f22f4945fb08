import { startMongoStandIn, type HttpResult, type LocalServer } from '@cm/testkit';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  waitFor,
  type AccountView,
  type ManagementHarness,
} from '../test/support/management-harness';

// its own stand-in, stopped under the running service; short timeouts so a request fails in about a second
let mongo: LocalServer;
let h: ManagementHarness;
let account: AccountView;

const newAccount = () =>
  h.request('POST', '/admin/v1/accounts', {
    token: TEST_ADMIN_TOKEN,
    body: { email: `down${Date.now()}@example.com`, password: 'correct horse battery' },
  });

function expectUnavailable(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 503,
    body: { error: { code: 'unavailable', message: expect.any(String) } },
  });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  mongo = await startMongoStandIn();
  h = await startManagementHarness({ MONGO_URL: `${mongo.url}/?serverSelectionTimeoutMS=1000&connectTimeoutMS=1000` });
  account = await h.createAccount();
}, 90_000);
afterAll(async () => {
  await h.stop();
  await mongo.stop();
});

describe('when the database is unreachable under a running management service', () => {
  test('then reads, writes and admin writes answer 503 with Retry-After, and work again once it is back', async () => {
    expect((await h.request('GET', '/api/v3/campaign', { token: account.api_token })).status).toBe(200);

    await mongo.stop();
    expectUnavailable(await h.request('GET', '/api/v3/campaign', { token: account.api_token }));
    expectUnavailable(
      await h.request('POST', '/api/v3/campaign', {
        token: account.api_token,
        body: { name: 'Spring sale', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Food / Drink' },
      }),
    );
    expectUnavailable(await newAccount());

    mongo = await startMongoStandIn({ port: mongo.port });
    // the stand-in comes back empty: a new account, then its read
    const created = await waitFor(newAccount, (res) => res.status === 201, 30_000);
    const again = await h.request('GET', '/api/v3/campaign', { token: created.body.api_token });
    expect(again.status).toBe(200);
  }, 90_000);
});
