import { MongoClient } from 'mongodb';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../test/support/management-harness';

let h: ManagementHarness;

beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const newUser = (n: string) => ({ email: `${n}-${Date.now()}@example.com`, password: 'long enough pw' });

describe('operator bootstrap', () => {
  test('when the operator token is missing or wrong, then 401 and nothing is created', async () => {
    const body = newUser('nobody');
    expect((await h.request('POST', '/admin/v1/accounts', { body })).status).toBe(401);
    const wrong = await h.request('POST', '/admin/v1/accounts', { token: 'wrong-token-xxxxxxxxxxxx', body });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    const ok = await h.request('POST', '/admin/v1/accounts', { token: TEST_ADMIN_TOKEN, body });
    expect(ok.status).toBe(201);
  });

  test('when an account is created, then it has digits for unique_id, a url-safe token and the email as user_name', async () => {
    const owner = await h.createAccount();
    expect(owner.unique_id).toMatch(/^\d+$/);
    expect(owner.api_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(owner.user_name).toBe(owner.email);
    expect(Object.keys(owner).sort()).toEqual(['api_token', 'email', 'unique_id', 'user_name']);
  });
});

describe('bearer auth', () => {
  test('when no token or an unknown token is sent, then 401 with the error shape', async () => {
    const none = await h.request('GET', '/api/v3/user/');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect((await h.request('GET', '/api/v3/user/', { token: 'unknown' })).status).toBe(401);
    expect((await h.request('GET', '/api/v3/user/', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
  });

  test('when no token is sent to any /api/v3 resource, then 401', async () => {
    const owner = await h.createAccount();
    expect((await h.request('POST', `/api/v3/user/${owner.unique_id}/token/`)).status).toBe(401);
    expect((await h.request('GET', '/api/v3/campaign/')).status).toBe(401);
    expect(
      (
        await h.request('POST', '/api/v3/campaign/', {
          body: { name: 'x', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Other' },
        })
      ).status,
    ).toBe(401);
    expect((await h.request('GET', '/api/v3/redirect-hosts/')).status).toBe(401);
    expect((await h.request('PUT', '/api/v3/redirect-hosts/', { body: { hosts: [] } })).status).toBe(401);
  });
});

describe('users', () => {
  test('when an owner creates a sub-user, then it is listed with the four fields and no password', async () => {
    const owner = await h.createAccount();
    const input = { ...newUser('sub'), user_name: 'Sub One', timezone: 'Europe/Berlin', target_geography: 'Germany' };
    const created = await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: input });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      user_name: 'Sub One',
      email: input.email,
      unique_id: expect.stringMatching(/^\d+$/),
      api_token: expect.any(String),
    });
    const list = await h.request('GET', '/api/v3/user', { token: owner.api_token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect(JSON.stringify(list.body)).not.toContain('long enough pw');
  });

  test('when user_name is blank, then the email is the user name', async () => {
    const owner = await h.createAccount();
    const input = { ...newUser('blank'), user_name: '' };
    const created = await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: input });
    expect(created.body.user_name).toBe(input.email);
  });

  test('when the body is form-encoded, then it is accepted like JSON', async () => {
    const owner = await h.createAccount();
    const email = `form-${Date.now()}@example.com`;
    const form = new URLSearchParams({ email, password: 'form password 1' });
    form.append('target_geography', 'France');
    form.append('target_geography', 'Spain');
    const res = await h.request('POST', '/api/v3/user/', {
      token: owner.api_token,
      body: form.toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(email);
  });

  test.each([
    ['missing email', { password: 'long enough pw' }, 'email'],
    ['bad email', { email: 'not-an-email', password: 'long enough pw' }, 'email'],
    ['missing password', { email: 'a@example.com' }, 'password'],
    ['short password', { email: 'a@example.com', password: 'short' }, 'password'],
    ['long password', { email: 'a@example.com', password: 'x'.repeat(129) }, 'password'],
    ['bad timezone', { email: 'a@example.com', password: 'long enough pw', timezone: 'Mars/Olympus' }, 'timezone'],
    [
      'bad country',
      { email: 'a@example.com', password: 'long enough pw', target_geography: ['Germany', 'Atlantis'] },
      'target_geography',
    ],
    ['operator object', { email: { $gt: '' }, password: 'long enough pw' }, 'email'],
    ['unknown field', { email: 'a@example.com', password: 'long enough pw', role: 'owner' }, 'role'],
    ['wrong type', { email: 'a@example.com', password: 12345678 }, 'password'],
  ])('when creating with %s, then 400 naming the field', async (_name, body, field) => {
    const owner = await h.createAccount();
    const res = await h.request('POST', '/api/v3/user/', { token: owner.api_token, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(
      res.body.error.details.some((d: { field: string }) => d.field === field || d.field.startsWith(`${field}.`)),
    ).toBe(true);
    const list = await h.request('GET', '/api/v3/user/', { token: owner.api_token });
    expect(list.body).toEqual([]);
  });

  test('when the email is taken (in any case), then 409', async () => {
    const owner = await h.createAccount();
    const input = newUser('dupe');
    expect((await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: input })).status).toBe(200);
    const again = await h.request('POST', '/api/v3/user/', {
      token: owner.api_token,
      body: { ...input, email: input.email.toUpperCase() },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  test('when a user is edited, then 201 with the updated user and the new password is stored hashed', async () => {
    const owner = await h.createAccount();
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('edit') })).body;
    const res = await h.request('POST', `/api/v3/user/${sub.unique_id}/`, {
      token: owner.api_token,
      body: {
        user_name: 'Renamed',
        password: 'a new password',
        timezone: 'America/New_York',
        target_geography: ['Canada'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ...sub, user_name: 'Renamed' });
    const client = await MongoClient.connect(process.env.MONGO_URL!);
    try {
      const doc = await client
        .db(h.config.MONGO_DB)
        .collection('users')
        .findOne({ _id: sub.unique_id } as never);
      expect(doc?.password_hash).toMatch(/^scrypt\$/);
      expect(JSON.stringify(doc)).not.toContain('a new password');
      expect(doc?.timezone).toBe('America/New_York');
      expect(doc?.target_geography).toEqual(['Canada']);
    } finally {
      await client.close();
    }
  });

  test('when an edit has no body or an empty object, then 201 with the user unchanged', async () => {
    const owner = await h.createAccount();
    const sub = (
      await h.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        body: { ...newUser('noop'), user_name: 'Kept' },
      })
    ).body;
    for (const body of [undefined, {}]) {
      const res = await h.request('POST', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token, body });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(sub);
    }
    expect((await h.request('POST', '/api/v3/user/123/', { token: owner.api_token })).status).toBe(404);
  });

  test.each([
    ['email (not allowed on edit)', { email: 'x@example.com' }],
    ['an unknown field', { api_token: 'mine' }],
    ['a bad timezone', { timezone: 'Nowhere/Land' }],
    ['an operator object', { user_name: { $ne: null } }],
  ])('when editing with %s, then 400', async (_n, body) => {
    const owner = await h.createAccount();
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('bad-edit') })).body;
    const res = await h.request('POST', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token, body });
    expect(res.status).toBe(400);
  });

  test('when a user is deleted, then 204, it is gone from the list and its token stops working', async () => {
    const owner = await h.createAccount();
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('del') })).body;
    const del = await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token })).body).toEqual([]);
    expect((await h.request('GET', '/api/v3/campaign/', { token: sub.api_token })).status).toBe(401);
    expect((await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token })).status).toBe(404);
  });

  test('when an owner deletes itself, then 403', async () => {
    const owner = await h.createAccount();
    expect((await h.request('DELETE', `/api/v3/user/${owner.unique_id}/`, { token: owner.api_token })).status).toBe(
      403,
    );
  });

  test('when a sub-user tries to manage users, then 403', async () => {
    const owner = await h.createAccount();
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('perm') })).body;
    expect((await h.request('GET', '/api/v3/user/', { token: sub.api_token })).status).toBe(403);
    expect((await h.request('POST', '/api/v3/user/', { token: sub.api_token, body: newUser('x') })).status).toBe(403);
    expect(
      (await h.request('POST', `/api/v3/user/${sub.unique_id}/`, { token: sub.api_token, body: { user_name: 'x' } }))
        .status,
    ).toBe(403);
    expect((await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: sub.api_token })).status).toBe(403);
  });

  test("when an owner touches another account's user, then 404", async () => {
    const a = await h.createAccount();
    const b = await h.createAccount();
    const subOfB = (await h.request('POST', '/api/v3/user/', { token: b.api_token, body: newUser('iso') })).body;
    expect(
      (await h.request('POST', `/api/v3/user/${subOfB.unique_id}/`, { token: a.api_token, body: { user_name: 'x' } }))
        .status,
    ).toBe(404);
    expect((await h.request('DELETE', `/api/v3/user/${subOfB.unique_id}/`, { token: a.api_token })).status).toBe(404);
    expect((await h.request('GET', '/api/v3/user/', { token: a.api_token })).body).toEqual([]);
    expect((await h.request('DELETE', '/api/v3/user/not-digits/', { token: a.api_token })).status).toBe(404);
  });
});

describe('token rotation', () => {
  const rotate = (token: string, userId: string, body?: unknown) =>
    h.request('POST', `/api/v3/user/${userId}/token/`, { token, body });

  test("when an owner rotates a sub-user's token, then 200 with the user and a new token, the old one is 401 at once and the new one works", async () => {
    const owner = await h.createAccount();
    const sub = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('rot') })).body;
    const res = await rotate(owner.api_token, sub.unique_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...sub, api_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(res.body.api_token).not.toBe(sub.api_token);
    expect((await h.request('GET', '/api/v3/campaign/', { token: sub.api_token })).status).toBe(401);
    expect((await h.request('GET', '/api/v3/campaign/', { token: res.body.api_token })).status).toBe(200);
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token })).body).toEqual([res.body]);
  });

  test('when an owner rotates its own token (no trailing slash), then the old owner token is 401', async () => {
    const owner = await h.createAccount();
    const res = await h.request('POST', `/api/v3/user/${owner.unique_id}/token`, { token: owner.api_token });
    expect(res.status).toBe(200);
    expect(res.body.unique_id).toBe(owner.unique_id);
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token })).status).toBe(401);
    expect((await h.request('GET', '/api/v3/user/', { token: res.body.api_token })).status).toBe(200);
  });

  test("when a sub-user rotates its own token, then 200; another user's token, then 403 and nothing changes", async () => {
    const owner = await h.createAccount();
    const a = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('rot-a') })).body;
    const b = (await h.request('POST', '/api/v3/user/', { token: owner.api_token, body: newUser('rot-b') })).body;
    expect((await rotate(a.api_token, b.unique_id)).status).toBe(403);
    expect((await rotate(a.api_token, owner.unique_id)).status).toBe(403);
    expect((await h.request('GET', '/api/v3/campaign/', { token: b.api_token })).status).toBe(200);
    const own = await rotate(a.api_token, a.unique_id);
    expect(own.status).toBe(200);
    expect((await h.request('GET', '/api/v3/campaign/', { token: a.api_token })).status).toBe(401);
  });

  test("when the user is in another account, unknown or not digits, then 404 and the other account's token still works", async () => {
    const a = await h.createAccount();
    const b = await h.createAccount();
    expect((await rotate(a.api_token, b.unique_id)).status).toBe(404);
    expect((await rotate(a.api_token, '123')).status).toBe(404);
    expect((await rotate(a.api_token, 'abc')).status).toBe(404);
    expect((await h.request('GET', '/api/v3/campaign/', { token: b.api_token })).status).toBe(200);
  });

  test.each([
    ['an unknown field', { api_token: 'chosen-by-me' }],
    ['an operator object', { $set: { api_token: 'x' } }],
    ['a huge field', { x: 'y'.repeat(10_000) }],
  ])('when the rotation carries %s, then 400 and the token is unchanged', async (_n, body) => {
    const owner = await h.createAccount();
    const res = await rotate(owner.api_token, owner.unique_id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect((await h.request('GET', '/api/v3/user/', { token: owner.api_token })).status).toBe(200);
  });
});
