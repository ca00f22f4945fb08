import { MongoClient, type Db } from 'mongodb';
import { uniqueName } from '@cm/testkit';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  type ManagementHarness,
} from '../../test/support/management-harness';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const K1 = `k1:${key(1)}`;
const K2 = `k2:${key(2)}`;
const LOOKUP_A = key(10);
const LOOKUP_B = key(11);

let mongo: MongoClient;
beforeAll(async () => {
  mongo = await MongoClient.connect(process.env.MONGO_URL!);
});
afterAll(async () => {
  await mongo.close();
});

/** Every string anywhere in a document tree. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.values(value).flatMap(stringsIn);
  return [];
}

async function usersDump(db: Db): Promise<unknown[]> {
  return db.collection('users').find().toArray();
}

async function listedTokens(h: ManagementHarness, ownerToken: string): Promise<string[]> {
  const res = await h.request('GET', '/api/v3/user/', { token: ownerToken });
  expect(res.status).toBe(200);
  return res.body.map((u: { api_token: string }) => u.api_token);
}

/** A fresh database, and a harness on it that can be restarted with other keys. */
async function onOneDatabase(): Promise<{ db: Db; start(env: Record<string, string>): Promise<ManagementHarness> }> {
  const names = { MONGO_DB: uniqueName('mgmt_tokens'), OWNER_REGISTRY_BUCKET: uniqueName('owners') };
  return { db: mongo.db(names.MONGO_DB), start: (env) => startManagementHarness({ ...names, ...env }) };
}

describe('api tokens at rest', () => {
  test('when users are created, then no api_token appears in clear anywhere in the users collection, and each still authenticates and is listed', async () => {
    const { db, start } = await onOneDatabase();
    const h = await start({ TOKEN_ENCRYPTION_KEYS: K1, TOKEN_LOOKUP_KEY: LOOKUP_A });
    try {
      const owner = await h.createAccount();
      const subs = [];
      for (let i = 0; i < 3; i++)
        subs.push(
          (
            await h.request('POST', '/api/v3/user/', {
              token: owner.api_token,
              body: { email: `at-rest-${i}-${Date.now()}@example.com`, password: 'long enough pw' },
            })
          ).body,
        );
      const tokens = [owner.api_token, ...subs.map((s) => s.api_token)];
      const strings = stringsIn(await usersDump(db));
      expect(strings.length).toBeGreaterThan(0);
      for (const token of tokens) expect(strings.filter((s) => s.includes(token))).toEqual([]);
      expect(await listedTokens(h, owner.api_token)).toEqual(subs.map((s) => s.api_token));
      for (const token of tokens) expect((await h.request('GET', '/api/v3/campaign/', { token })).status).toBe(200);
    } finally {
      await h.stop();
    }
  });

  test('when documents from before sealing hold plaintext tokens, then the start migrates them once, they keep working and the old index is gone', async () => {
    const { db, start } = await onOneDatabase();
    const users = db.collection('users');
    await users.createIndex({ api_token: 1 }, { unique: true, name: 'api_token_unique' });
    const now = new Date();
    const legacy = (id: string, role: string, token: string, email: string) => ({
      _id: id as never,
      account_id: '900000000000001',
      role,
      user_name: email,
      email,
      email_key: email,
      password_hash: 'scrypt$x',
      api_token: token,
      timezone: 'UTC',
      target_geography: [],
      created_at: now,
      updated_at: now,
    });
    const ownerToken = 'legacy-owner-token-0123456789abcdefghijklmnop';
    const subToken = 'legacy-sub-token-0123456789abcdefghijklmnopqr';
    await users.insertMany([
      legacy('900000000000001', 'owner', ownerToken, 'legacy-owner@example.com'),
      legacy('900000000000002', 'sub_user', subToken, 'legacy-sub@example.com'),
    ]);

    const first = await start({ TOKEN_ENCRYPTION_KEYS: K1, TOKEN_LOOKUP_KEY: LOOKUP_A });
    try {
      expect(await listedTokens(first, ownerToken)).toEqual([subToken]);
      expect((await first.request('GET', '/api/v3/campaign/', { token: subToken })).status).toBe(200);
      const strings = stringsIn(await usersDump(db));
      expect(strings.filter((s) => s.includes(ownerToken) || s.includes(subToken))).toEqual([]);
      expect((await users.indexes()).map((i) => i.name)).not.toContain('api_token_unique');
      // a second pass finds nothing left to do
      const again = await first.request('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN });
      expect(again.body).toEqual({ rekeyed: 0, unreadable: 0, remaining: 0 });
    } finally {
      await first.stop();
    }
  });

  test('when a new encryption key is put first, then tokens are resealed under it and keep working after the old key is removed', async () => {
    const { db, start } = await onOneDatabase();
    const withK1 = await start({ TOKEN_ENCRYPTION_KEYS: K1, TOKEN_LOOKUP_KEY: LOOKUP_A });
    const owner = await withK1.createAccount();
    const sub = (
      await withK1.request('POST', '/api/v3/user/', {
        token: owner.api_token,
        body: { email: `rotate-${Date.now()}@example.com`, password: 'long enough pw' },
      })
    ).body;
    await withK1.stop();

    const both = await start({ TOKEN_ENCRYPTION_KEYS: `${K2},${K1}`, TOKEN_LOOKUP_KEY: LOOKUP_A });
    const sealed = (await usersDump(db)).map((d) => (d as { api_token_enc: string }).api_token_enc);
    expect(sealed.every((s) => s.startsWith('v1.k2.'))).toBe(true);
    await both.stop();

    const onlyK2 = await start({ TOKEN_ENCRYPTION_KEYS: K2, TOKEN_LOOKUP_KEY: LOOKUP_A });
    try {
      expect(await listedTokens(onlyK2, owner.api_token)).toEqual([sub.api_token]);
      expect((await onlyK2.request('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN })).body).toEqual({
        rekeyed: 0,
        unreadable: 0,
        remaining: 0,
      });
    } finally {
      await onlyK2.stop();
    }
  });

  test('when the lookup key is rotated with the old one as previous, then tokens authenticate throughout and the hashes are redone', async () => {
    const { db, start } = await onOneDatabase();
    const before = await start({ TOKEN_ENCRYPTION_KEYS: K1, TOKEN_LOOKUP_KEY: LOOKUP_A });
    const owner = await before.createAccount();
    await before.stop();
    const hashBefore = (await db.collection('users').findOne({ _id: owner.unique_id as never }))?.api_token_hash;

    const rotated = await start({
      TOKEN_ENCRYPTION_KEYS: K1,
      TOKEN_LOOKUP_KEY: LOOKUP_B,
      TOKEN_LOOKUP_KEY_PREVIOUS: LOOKUP_A,
    });
    try {
      expect((await rotated.request('GET', '/api/v3/campaign/', { token: owner.api_token })).status).toBe(200);
      expect((await db.collection('users').findOne({ _id: owner.unique_id as never }))?.api_token_hash).not.toBe(
        hashBefore,
      );
    } finally {
      await rotated.stop();
    }
  });

  test('when the key a token was sealed with is removed too early, then the rekey pass reports it as unreadable and remaining', async () => {
    const { start } = await onOneDatabase();
    const withK1 = await start({ TOKEN_ENCRYPTION_KEYS: K1, TOKEN_LOOKUP_KEY: LOOKUP_A });
    await withK1.createAccount();
    await withK1.stop();
    const withoutK1 = await start({ TOKEN_ENCRYPTION_KEYS: K2, TOKEN_LOOKUP_KEY: LOOKUP_A });
    try {
      expect((await withoutK1.request('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN })).body).toEqual({
        rekeyed: 0,
        unreadable: 1,
        remaining: 1,
      });
    } finally {
      await withoutK1.stop();
    }
  });

  test.each([
    ['an unknown field', { keys: 'k9' }],
    ['an operator object', { $set: { token_keys: 'x' } }],
  ])('when the rekey endpoint gets a body with %s, then 400', async (_name, body) => {
    const { start } = await onOneDatabase();
    const h = await start({});
    try {
      const res = await h.request('POST', '/admin/v1/tokens/rekey', { token: TEST_ADMIN_TOKEN, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    } finally {
      await h.stop();
    }
  });

  test('when the rekey endpoint is called without the operator token, then 401', async () => {
    const { start } = await onOneDatabase();
    const h = await start({});
    try {
      const res = await h.request('POST', '/admin/v1/tokens/rekey');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    } finally {
      await h.stop();
    }
  });
});
