import path from 'node:path';
import { OpenApiContract, docsPageProblems } from '@cm/testkit';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type HttpResult,
  type ManagementHarness,
} from '../test/support/management-harness';

/**
 * Every documented operation is called with good and bad input, and every live response is
 * checked against services/management/openapi.yaml (status documented, body matches the schema).
 */
const contract = new OpenApiContract(path.join(__dirname, '..', 'openapi.yaml'));
const problems: string[] = [];
let h: ManagementHarness;

async function call(
  method: string,
  url: string,
  opts: Parameters<ManagementHarness['request']>[2] = {},
): Promise<HttpResult> {
  const res = await h.request(method, url, opts);
  problems.push(
    ...contract.check(method, url, {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: res.body,
    }),
  );
  return res;
}

beforeAll(async () => {
  // small quotas, so the quota answers (409) are exercised too
  h = await startManagementHarness({
    QUOTA_SUB_USERS_PER_ACCOUNT: '1',
    QUOTA_CAMPAIGNS_PER_USER: '2',
    QUOTA_REDIRECT_HOSTS_PER_USER: '2',
  });
});
afterAll(async () => {
  await h.stop();
});

test('when every documented operation is called, then every response matches the OpenAPI document', async () => {
  const stamp = Date.now();
  // operator bootstrap: 201, 400, 401, 409, 415, 413
  const owner = (
    await call('POST', '/admin/v1/accounts', {
      token: TEST_ADMIN_TOKEN,
      body: { email: `c-${stamp}@example.com`, password: 'long enough pw' },
    })
  ).body;
  await call('POST', '/admin/v1/accounts', { token: TEST_ADMIN_TOKEN, body: { email: 'nope' } });
  await call('POST', '/admin/v1/accounts', { body: { email: `x-${stamp}@example.com`, password: 'long enough pw' } });
  await call('POST', '/admin/v1/accounts', {
    token: TEST_ADMIN_TOKEN,
    body: { email: `c-${stamp}@example.com`, password: 'long enough pw' },
  });
  await call('POST', '/admin/v1/accounts', { token: TEST_ADMIN_TOKEN, body: '<x/>', contentType: 'text/xml' });
  await call('POST', '/admin/v1/accounts', {
    token: TEST_ADMIN_TOKEN,
    body: { email: `big-${stamp}@example.com`, password: 'p'.repeat(70_000) },
  });
  const token = owner.api_token as string;
  await call('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN });
  await call('POST', '/admin/v1/tokens/rekey');
  await call('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN });
  await call('POST', '/admin/v1/registry/reconcile');
  await call('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN, body: { owner_id: '1' } });
  await call('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN, body: '<x/>', contentType: 'text/xml' });

  // users
  const sub = (
    await call('POST', '/api/v3/user/', {
      token,
      body: { email: `s-${stamp}@example.com`, password: 'long enough pw', target_geography: 'Germany' },
    })
  ).body;
  await call('POST', '/api/v3/user/', { token, body: { email: `s-${stamp}@example.com`, password: 'long enough pw' } });
  await call('POST', '/api/v3/user/', { token, body: { email: `q-${stamp}@example.com`, password: 'long enough pw' } }); // quota: 1 sub-user
  await call('POST', '/api/v3/user/', { token, body: { email: 1 } });
  await call('POST', '/api/v3/user/', {
    token: sub.api_token,
    body: { email: `t-${stamp}@example.com`, password: 'long enough pw' },
  });
  await call('GET', '/api/v3/user/', { token });
  await call('GET', '/api/v3/user/', { token: sub.api_token });
  await call('GET', '/api/v3/user/');
  await call('GET', '/api/v3/user/me/', { token });
  await call('GET', '/api/v3/user/me/', { token: sub.api_token });
  await call('GET', '/api/v3/user/me/?x=1', { token });
  await call('GET', '/api/v3/user/me/');
  await call('POST', `/api/v3/user/${sub.unique_id}/`, { token, body: { user_name: 'Sub' } });
  await call('POST', `/api/v3/user/${sub.unique_id}/`, { token, body: { email: 'x@example.com' } });
  await call('POST', '/api/v3/user/123/', { token, body: { user_name: 'Nobody' } });
  await call('POST', `/api/v3/user/${sub.unique_id}/`, { token: sub.api_token, body: { user_name: 'Self' } });
  const rotated = (await call('POST', `/api/v3/user/${sub.unique_id}/token/`, { token })).body;
  await call('POST', `/api/v3/user/${owner.unique_id}/token/`, { token: rotated.api_token });
  await call('POST', `/api/v3/user/${sub.unique_id}/token/`, { token, body: { api_token: 'mine' } });
  await call('POST', '/api/v3/user/123/token/', { token });
  await call('POST', `/api/v3/user/${sub.unique_id}/token/`, { token: 'unknown' });

  // redirect hosts
  await call('GET', '/api/v3/redirect-hosts/', { token });
  await call('PUT', '/api/v3/redirect-hosts/', { token, body: { hosts: ['shop.example', '*.cdn.example'] } });
  await call('PUT', '/api/v3/redirect-hosts/', { token, body: { hosts: 'https://bad.example/' } });
  await call('PUT', '/api/v3/redirect-hosts/', { token, body: { hosts: ['a.example', 'b.example', 'c.example'] } }); // quota: 2
  await call('PUT', '/api/v3/redirect-hosts/', { token, body: '<x/>', contentType: 'text/xml' });
  await call('GET', '/api/v3/redirect-hosts/');

  // campaigns
  const campaignBody = {
    name: 'Contract',
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    category: 'Technology',
    brand: 'Acme',
    reach: 10,
    target_geography: ['Germany'],
    objective: 'Reach',
  };
  const campaign = (await call('POST', '/api/v3/campaign/', { token, body: campaignBody })).body;
  await call('POST', '/api/v3/campaign/', {
    token,
    body: { name: 'Minimal', start_date: '2026-01-01', end_date: '2026-01-02', category: 'Other' },
  });
  await call('POST', '/api/v3/campaign/', { token, body: { ...campaignBody, category: 'Nope' } });
  await call('POST', '/api/v3/campaign/', { token, body: campaignBody }); // quota: 2 campaigns
  await call('POST', '/api/v3/campaign/', { body: campaignBody });
  await call('POST', '/api/v3/campaign/', { token, body: 'a=b', contentType: 'text/plain' });
  await call('GET', '/api/v3/campaign/', { token });
  const firstPage = (await call('GET', '/api/v3/campaign/?limit=1', { token })).body;
  await call('GET', `/api/v3/campaign/?limit=1&cursor=${firstPage.next_cursor}`, { token });
  await call('GET', '/api/v3/campaign/?limit=0', { token });
  await call('GET', '/api/v3/user/?limit=1', { token });
  await call('GET', '/api/v3/user/?limit=1&cursor=forged.cursor', { token });
  await call('POST', `/api/v3/campaign/${campaign.token}/`, { token, body: { reach: 20, brand: null } });
  await call('POST', `/api/v3/campaign/${campaign.token}/`, { token, body: { start_date: '2027-01-01' } });
  await call('POST', `/api/v3/campaign/${campaign.token}/`, { token }); // empty edit: a documented no-op
  await call('POST', '/api/v3/campaign/unknownToken/', { token, body: { reach: 1 } });

  // content
  const item = (
    await call('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token,
      body: { url: 'https://192.0.2.10/a', content_type: 'Article' },
    })
  ).body;
  await call('POST', `/api/v3/campaign/${campaign.token}/content/`, {
    token,
    body: { url: 'https://192.0.2.11/no-type' },
  });
  await call('POST', `/api/v3/campaign/${campaign.token}/content/`, { token, body: { url: 'https://192.0.2.10/a' } });
  await call('POST', `/api/v3/campaign/${campaign.token}/content/`, { token, body: { url: 'javascript:alert(1)' } });
  await call('POST', '/api/v3/campaign/unknownToken/content/', { token, body: { url: 'https://192.0.2.10/a' } });
  await call('POST', `/api/v3/${campaign.token}/${item.token}/`, { token, body: { content_type: 'Video' } });
  await call('POST', `/api/v3/${campaign.token}/${item.token}/`, { token, body: { content_type: 'Podcast' } });
  await call('POST', `/api/v3/campaign/${campaign.token}/${item.token}/`, { token, body: { content_type: 'Quiz' } });
  await call('POST', `/api/v3/campaign/${campaign.token}/unknownItem0000000000/`, {
    token,
    body: { content_type: 'Quiz' },
  });
  await call('GET', `/api/v3/campaign/${campaign.token}/`, { token });
  await call('GET', '/api/v3/campaign/unknownToken/', { token });
  await call('DELETE', `/api/v3/campaign/${campaign.token}/${item.token}/`, { token });
  await call('DELETE', `/api/v3/campaign/${campaign.token}/${item.token}/`, { token });
  await call('DELETE', `/api/v3/campaign/${campaign.token}/`, { token });
  await call('DELETE', `/api/v3/campaign/${campaign.token}/`, { token });

  await call('DELETE', `/api/v3/user/${sub.unique_id}/`, { token });
  await call('DELETE', `/api/v3/user/${sub.unique_id}/`, { token });
  await call('DELETE', `/api/v3/user/${owner.unique_id}/`, { token });

  // operations
  await call('GET', '/healthz');
  await call('GET', '/readyz');
  const metrics = await fetch(`${h.baseUrl}/metrics`);
  problems.push(
    ...contract.check('GET', '/metrics', {
      status: metrics.status,
      contentType: metrics.headers.get('content-type'),
      body: await metrics.text(),
    }),
  );

  // a rate limit: a second harness where each token has one call a minute
  const limited = await startManagementHarness({ API_RATE_LIMIT_PER_MINUTE: '1' });
  try {
    const limitedToken = (await limited.createAccount()).api_token;
    for (let i = 0; i < 2; i++) {
      const res = await limited.request('GET', '/api/v3/campaign/', { token: limitedToken });
      problems.push(
        ...contract.check('GET', '/api/v3/campaign/', {
          status: res.status,
          contentType: res.headers.get('content-type'),
          body: res.body,
        }),
      );
      if (i === 1) expect(res.status).toBe(429);
    }
  } finally {
    await limited.stop();
  }

  expect(problems).toEqual([]);
  expect(contract.uncovered()).toEqual([]);
});

test('when /docs is opened, then the reference page, its assets and the document are served locally', async () => {
  expect(await docsPageProblems(h.baseUrl)).toEqual([]);
  const doc = (await (await fetch(`${h.baseUrl}/docs/openapi.json`)).json()) as {
    openapi: string;
    paths: Record<string, unknown>;
  };
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths)).toContain('/api/v3/campaign/');
});
