import { OWNER_RECORD_LIMITS } from '@cm/contracts';
import {
  startManagementHarness,
  TEST_ADMIN_TOKEN,
  type ManagementHarness,
} from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness({
    QUOTA_SUB_USERS_PER_ACCOUNT: '2',
    QUOTA_CAMPAIGNS_PER_USER: '2',
    QUOTA_CONTENT_PER_CAMPAIGN: '2',
    QUOTA_REDIRECT_HOSTS_PER_USER: '3',
  });
});
afterAll(async () => {
  await h.stop();
});

const CAMPAIGN = { name: 'Q', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' };

function expectQuota(res: { status: number; body: any }, quota: string, limit: number, field: string) {
  expect(res.status).toBe(409);
  expect(res.body.error).toEqual({
    code: 'conflict',
    message: `quota exceeded: ${quota} (at most ${limit})`,
    details: [{ field, message: `quota exceeded: ${quota} (at most ${limit})` }],
  });
}

describe('quotas', () => {
  test('when an account has as many sub-users as its quota, then the next create is 409 naming the quota and nothing is stored; a delete makes room', async () => {
    const owner = await h.createAccount();
    const first = await h.createSubUser(owner.api_token);
    await h.createSubUser(owner.api_token);
    const over = await h.request('POST', '/api/v3/user/', {
      token: owner.api_token,
      body: { email: `over-${Date.now()}@example.com`, password: 'long enough pw' },
    });
    expectQuota(over, 'sub-users per account', 2, 'user');
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token })).body).toHaveLength(2);
    await h.request('DELETE', `/api/v3/user/${first.unique_id}/`, { token: owner.api_token });
    await h.createSubUser(owner.api_token);
  });

  test('when a user has as many campaigns as its quota, then the next create is 409; the quota is per user', async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    for (let i = 0; i < 2; i++)
      expect((await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: CAMPAIGN })).status).toBe(
        200,
      );
    expectQuota(
      await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: CAMPAIGN }),
      'campaigns per user',
      2,
      'campaign',
    );
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token })).body).toHaveLength(2);
    expect((await h.request('POST', '/api/v3/campaign/', { token: sub.api_token, body: CAMPAIGN })).status).toBe(200);
  });

  test('when a campaign holds as many items as its quota, then the next add is 409', async () => {
    const owner = await h.createAccount();
    const campaign = (await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: CAMPAIGN })).body;
    const add = (url: string) =>
      h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, { token: owner.api_token, body: { url } });
    expect((await add('https://192.0.2.1/a')).status).toBe(200);
    expect((await add('https://192.0.2.1/b')).status).toBe(200);
    expectQuota(await add('https://192.0.2.1/c'), 'content items per campaign', 2, 'url');
  });

  test('when the explicit redirect list is longer than its quota, then 409 and the stored list is unchanged', async () => {
    const owner = await h.createAccount();
    const put = (hosts: string[]) =>
      h.request('PUT', '/api/v3/redirect-hosts/', { token: owner.api_token, body: { hosts } });
    expect((await put(['a.example', 'b.example', 'c.example'])).status).toBe(200);
    expectQuota(
      await put(['a.example', 'b.example', 'c.example', 'd.example']),
      'explicit redirect hosts per user',
      3,
      'hosts',
    );
    expect((await h.request('GET', '/api/v3/redirect-hosts/', { token: owner.api_token })).body.hosts).toEqual([
      'a.example',
      'b.example',
      'c.example',
    ]);
  });

  test('when the content hosts and the explicit list together reach the record limit, then a URL with a new host is 409 and one with a known host is not', async () => {
    const owner = await h.createAccount();
    const db = await h.db();
    // arranged in the database: more campaigns than the test quota allows, holding the limit's worth of hosts
    const hosts = Array.from({ length: OWNER_RECORD_LIMITS.redirectHosts }, (_, i) => `h${i}.example`);
    const campaigns = Array.from({ length: OWNER_RECORD_LIMITS.redirectHosts / 2 }, (_, i) => ({
      _id: `quota${Date.now()}c${i}`,
      owner_id: owner.unique_id,
      ...CAMPAIGN,
      brand: null,
      reach: null,
      target_geography: [],
      objective: null,
      created_at: new Date(),
      last_modified: new Date(),
      version: 0,
      content: [0, 1].map((j) => ({
        token: `t${i}x${j}`,
        url: `https://${hosts[2 * i + j]}/`,
        host: hosts[2 * i + j],
        content_type: null,
        added: new Date(),
        title: '',
        title_state: 'done',
      })),
    }));
    const empty = { ...campaigns[0]!, _id: `quota${Date.now()}empty`, content: [] };
    await db.collection('campaigns').insertMany([...campaigns, empty] as never[]);
    const add = (url: string) =>
      h.request('POST', `/api/v3/campaign/${empty._id}/content/`, { token: owner.api_token, body: { url } });
    expect((await add('https://h0.example/another')).status).toBe(200); // a host the record has already
    expectQuota(
      await add('https://brand-new.example/'),
      'redirect hosts per owner, explicit and from content URLs together',
      OWNER_RECORD_LIMITS.redirectHosts,
      'url',
    );
    // the content was arranged behind the service's back: reconciliation brings the record in line, at the limit exactly
    expect((await h.request('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN })).status).toBe(200);
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toHaveLength(OWNER_RECORD_LIMITS.redirectHosts);
  });
});
