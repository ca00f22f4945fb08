import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

// what a client needs to query the Events API for its own data: its owner_id and its time zone
let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /api/v3/user/me/', () => {
  test('when an owner and its sub-user read themselves, then each gets its own unique_id, e-mail, name and time zone, never a token', async () => {
    const owner = await h.createAccount();
    const input = { email: `me-${Date.now()}@example.com`, password: 'long enough pw', timezone: 'Asia/Kolkata' };
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: input })).body;

    const ownerSelf = await h.request('GET', '/api/v3/user/me/', { token: owner.api_token });
    expect(ownerSelf.status).toBe(200);
    expect(ownerSelf.body).toEqual({
      unique_id: owner.unique_id,
      email: owner.email,
      user_name: owner.email,
      timezone: 'UTC',
    });
    const subSelf = await h.request('GET', '/api/v3/user/me', { token: sub.api_token });
    expect(subSelf.status).toBe(200);
    expect(subSelf.body).toEqual({
      unique_id: sub.unique_id,
      email: input.email,
      user_name: input.email,
      timezone: 'Asia/Kolkata',
    });
    expect(JSON.stringify([ownerSelf.body, subSelf.body])).not.toMatch(/api_token|password/);
  });

  test('when the time zone is edited, then the next read shows it', async () => {
    const owner = await h.createAccount();
    await h.request('POST', `/api/v3/user/${owner.unique_id}/`, {
      token: owner.api_token,
      body: { timezone: 'America/New_York' },
    });
    const self = await h.request('GET', '/api/v3/user/me/', { token: owner.api_token });
    expect(self.body.timezone).toBe('America/New_York');
  });

  test('when no token or a query parameter is sent, then 401 and 400', async () => {
    expect((await h.request('GET', '/api/v3/user/me/')).status).toBe(401);
    const owner = await h.createAccount();
    const withQuery = await h.request('GET', '/api/v3/user/me/?unique_id=1', { token: owner.api_token });
    expect(withQuery.status).toBe(400);
    expect(withQuery.body.error.details[0].field).toMatch(/unique_id/);
  });
});
