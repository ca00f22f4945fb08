import { ApiKeyService } from './api-key-service';
import { ApiKeyStore } from './api-key-store';
import { hashApiKey } from './api-key-secret';
import {
  REPORTING_ADMIN_TOKEN,
  newOwnerId,
  startReportingHarness,
  type ReportingHarness,
} from '../../test/support/reporting-harness';

let h: ReportingHarness;

beforeAll(async () => {
  h = await startReportingHarness();
});
afterAll(async () => {
  await h.stop();
});

const admin = { token: REPORTING_ADMIN_TOKEN };

describe('API key admin', () => {
  test('when the operator token is missing or wrong, then 401 on every admin endpoint and nothing is created', async () => {
    expect((await h.request('POST', '/admin/v1/api-keys', { body: { owner_ids: ['1'] } })).status).toBe(401);
    expect(
      (
        await h.request('POST', '/admin/v1/api-keys', {
          token: 'wrong-token-xxxxxxxxxxxxxx',
          body: { owner_ids: ['1'] },
        })
      ).status,
    ).toBe(401);
    const list = await h.request('GET', '/admin/v1/api-keys', { token: 'wrong-token-xxxxxxxxxxxxxx' });
    expect(list.status).toBe(401);
    expect(list.body.error.code).toBe('unauthorized');
    expect((await h.request('DELETE', '/admin/v1/api-keys/00000000-0000-0000-0000-000000000000')).status).toBe(401);
    expect((await h.request('GET', '/admin/v1/api-keys', admin)).body).toEqual([]);
  });

  test('when a key is created, then 201 shows it once and only its SHA-256 hash is stored', async () => {
    const owners = [newOwnerId(), newOwnerId()];
    const res = await h.request('POST', '/admin/v1/api-keys/', { ...admin, body: { owner_ids: owners } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_key: expect.stringMatching(/^ek_[A-Za-z0-9_-]{43}$/),
      owner_ids: owners,
    });
    const stored = await h.db.collection('api_keys').findOne({ _id: res.body.id } as never);
    expect(stored).toMatchObject({ key_hash: hashApiKey(res.body.api_key), owner_ids: owners });
    expect(JSON.stringify(stored)).not.toContain(res.body.api_key);
  });

  test('when keys are listed, then each shows id, owner_ids and created but no secret', async () => {
    const created = await h.createKey([newOwnerId()]);
    const list = await h.request('GET', '/admin/v1/api-keys', admin);
    expect(list.status).toBe(200);
    const item = list.body.find((k: { id: string }) => k.id === created.id);
    expect(item).toEqual({
      id: created.id,
      owner_ids: created.owner_ids,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(JSON.stringify(list.body)).not.toContain(created.api_key);
    expect(JSON.stringify(list.body)).not.toContain('key_hash');
  });

  test('when a key is deleted, then 204, it is gone from the list, reports with it are 401 at once, and a second delete is 404', async () => {
    const owner = newOwnerId();
    const key = await h.createKey([owner]);
    expect((await h.report(key.api_key, { owner_id: owner })).status).toBe(200);
    const del = await h.request('DELETE', `/admin/v1/api-keys/${key.id}`, admin);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    const list = await h.request('GET', '/admin/v1/api-keys', admin);
    expect(list.body.map((k: { id: string }) => k.id)).not.toContain(key.id);
    const revoked = await h.report(key.api_key, { owner_id: owner });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('unauthorized');
    expect((await h.request('DELETE', `/admin/v1/api-keys/${key.id}`, admin)).status).toBe(404);
  });

  test.each(['not-a-uuid', '00000000-0000-0000-0000-000000000000', '%24gt'])(
    'when deleting unknown id %s, then 404',
    async (id) => {
      const res = await h.request('DELETE', `/admin/v1/api-keys/${id}`, admin);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    },
  );

  test.each([
    ['no owner_ids', {}, 'owner_ids'],
    ['empty owner_ids', { owner_ids: [] }, 'owner_ids'],
    ['owner_ids a string', { owner_ids: '123' }, 'owner_ids'],
    ['non-digit owner id', { owner_ids: ['12a'] }, 'owner_ids.0'],
    ['numeric owner id', { owner_ids: [123] }, 'owner_ids.0'],
    ['operator object', { owner_ids: { $gt: '' } }, 'owner_ids'],
    ['duplicate owner ids', { owner_ids: ['1', '1'] }, 'owner_ids.1'],
    ['unknown field', { owner_ids: ['1'], scope: 'all' }, 'scope'],
  ])('when creating with %s (body %j), then 400 naming %s', async (_what, body, field) => {
    const res = await h.request('POST', '/admin/v1/api-keys', { ...admin, body });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('when the create body is malformed JSON or not JSON/form, then 400 / 415', async () => {
    expect(
      (
        await h.request('POST', '/admin/v1/api-keys', {
          ...admin,
          body: '{"owner_ids":',
          contentType: 'application/json',
        })
      ).status,
    ).toBe(400);
    expect(
      (await h.request('POST', '/admin/v1/api-keys', { ...admin, body: 'owner_ids', contentType: 'text/plain' }))
        .status,
    ).toBe(415);
  });
});

describe('API key cache across processes', () => {
  test('when another process revokes a key, then this process honours it until its cache TTL passes, then 401s', async () => {
    let clock = Date.now();
    const here = new ApiKeyService(new ApiKeyStore(h.db), { cacheTtlMs: 1000, now: () => new Date(clock) });
    const elsewhere = new ApiKeyService(new ApiKeyStore(h.db), { cacheTtlMs: 1000 });
    const key = await elsewhere.create([newOwnerId()]);
    expect((await here.authenticate(key.api_key))?.id).toBe(key.id);
    await elsewhere.revoke(key.id);
    expect(await elsewhere.authenticate(key.api_key)).toBeUndefined();
    clock += 999;
    expect((await here.authenticate(key.api_key))?.id).toBe(key.id);
    clock += 2;
    expect(await here.authenticate(key.api_key)).toBeUndefined();
  });
});
