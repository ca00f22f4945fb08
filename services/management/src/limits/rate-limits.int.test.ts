import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness({
    API_RATE_LIMIT_PER_MINUTE: '6',
    API_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '2',
    AUTH_FAILURE_RATE_LIMIT_PER_MINUTE: '3',
    TRUST_PROXY: '1',
  });
});
afterAll(async () => {
  await h.stop();
});

let addresses = 0;
/** Each test speaks from its own client address (TRUST_PROXY=1 believes one X-Forwarded-For hop). */
const from = () => ({ 'x-forwarded-for': `198.51.100.${++addresses}` });
const limited = (kind: string) => h.metric('management_rate_limited_total', ['limit', kind]);

function expect429(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('per-user rate limit', () => {
  test('when a user spends its minute, then 429 with Retry-After, and another user of the same account is not affected', async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    const headers = from();
    for (let i = 0; i < 6; i++)
      expect((await h.request('GET', '/api/v3/campaign/', { token: sub.api_token, headers })).status).toBe(200);
    const before = await limited('user');
    expect429(await h.request('GET', '/api/v3/campaign/', { token: sub.api_token, headers }));
    expect(await limited('user')).toBe(before + 1);
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token, headers })).status).toBe(200);
  });
});

describe('limits follow the user, not its token', () => {
  test('when a user spends its minute and then rotates its token, then the new token is still limited (429 with Retry-After)', async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    const headers = from();
    for (let i = 0; i < 5; i++)
      expect((await h.request('GET', '/api/v3/campaign/', { token: sub.api_token, headers })).status).toBe(200);
    const rotated = await h.request('POST', `/api/v3/user/${sub.unique_id}/token/`, { token: sub.api_token, headers });
    expect(rotated.status).toBe(200);
    expect429(await h.request('GET', '/api/v3/campaign/', { token: rotated.body.api_token, headers }));
  });

  test('when an owner spends its expensive calls and rotates its token in between, then the new token is still limited for them', async () => {
    const owner = await h.createAccount();
    const headers = from();
    // creating the sub-user is the first expensive call, the rotation the second and last
    const sub = await h.createSubUser(owner.api_token);
    const rotated = await h.request('POST', `/api/v3/user/${owner.unique_id}/token/`, {
      token: owner.api_token,
      headers,
    });
    expect(rotated.status).toBe(200);
    const before = await limited('expensive');
    expect429(
      await h.request('POST', `/api/v3/user/${sub.unique_id}/`, {
        token: rotated.body.api_token,
        headers,
        body: { password: 'another long pw' },
      }),
    );
    expect(await limited('expensive')).toBe(before + 1);
  });
});

describe('expensive calls', () => {
  test('when a user creates and edits users beyond the tighter limit, then 429 and nothing more is created', async () => {
    const owner = await h.createAccount();
    const headers = from();
    const sub = await h.createSubUser(owner.api_token);
    expect(
      (
        await h.request('POST', `/api/v3/user/${sub.unique_id}/`, {
          token: owner.api_token,
          headers,
          body: { user_name: 'x' },
        })
      ).status,
    ).toBe(201);
    const before = await limited('expensive');
    expect429(
      await h.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        headers,
        body: { email: `rl-${Date.now()}@example.com`, password: 'long enough pw' },
      }),
    );
    expect429(await h.request('POST', `/api/v3/user/${sub.unique_id}/token/`, { token: owner.api_token, headers }));
    expect(await limited('expensive')).toBe(before + 2);
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token, headers })).body).toHaveLength(1);
    // the sub-user's token still works: its rotation was refused
    expect((await h.request('GET', '/api/v3/campaign/', { token: sub.api_token, headers })).status).toBe(200);
  });
});

describe('failed authentications per client address', () => {
  test('when an address fails too often, then it gets 429 even with a valid token, while other addresses are served', async () => {
    const owner = await h.createAccount();
    const attacker = from();
    for (const token of ['wrong-1', 'wrong-2', undefined])
      expect((await h.request('GET', '/api/v3/campaign/', { token, headers: attacker })).status).toBe(401);
    const before = await limited('auth_failures');
    expect429(await h.request('GET', '/api/v3/campaign/', { token: 'wrong-4', headers: attacker }));
    expect429(await h.request('GET', '/api/v3/campaign/', { token: owner.api_token, headers: attacker }));
    expect(await limited('auth_failures')).toBe(before + 2);
    expect((await h.request('GET', '/api/v3/campaign/', { token: owner.api_token, headers: from() })).status).toBe(200);
  });

  test('when a limited client prepends addresses of its own to X-Forwarded-For, then it is still limited; a junk header is a 4xx, never a 5xx', async () => {
    const attacker = from();
    for (const token of ['wrong-1', 'wrong-2', 'wrong-3'])
      expect((await h.request('GET', '/api/v3/campaign/', { token, headers: attacker })).status).toBe(401);
    // TRUST_PROXY=1: only the hop the proxy appended (the last entry) counts
    expect429(
      await h.request('GET', '/api/v3/campaign/', {
        token: 'wrong-4',
        headers: { 'x-forwarded-for': `203.0.113.99, ${attacker['x-forwarded-for']}` },
      }),
    );
    const junk = await h.request('GET', '/api/v3/campaign/', {
      token: 'wrong-5',
      headers: { 'x-forwarded-for': `${'x'.repeat(10_000)}, ,;$gt` },
    });
    expect(junk.status).toBeGreaterThanOrEqual(400);
    expect(junk.status).toBeLessThan(500);
  });

  test('when clients of one IPv6 /64 send bad tokens from a different address each, then they share one failure budget; another /64 is not held up', async () => {
    const owner = await h.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await h.request('GET', '/api/v3/campaign/', {
            token: `wrong-${i}`,
            headers: { 'x-forwarded-for': `2001:db8:77:1::${i + 1}` },
          })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(
      (
        await h.request('GET', '/api/v3/campaign/', {
          token: owner.api_token,
          headers: { 'x-forwarded-for': '2001:db8:77:2::1' },
        })
      ).status,
    ).toBe(200);
  });

  test('when an address authenticates successfully, then that costs nothing from its failure budget', async () => {
    const owner = await h.createAccount();
    const headers = from();
    for (let i = 0; i < 5; i++)
      expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token, headers })).status).toBe(200);
    expect((await h.request('GET', '/api/v3/user/', { token: 'wrong', headers })).status).toBe(401);
  });
});
