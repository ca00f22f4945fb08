import { encodeOwnerRecord } from '@cm/contracts';
import { startNatsServer, uniqueName } from '@cm/testkit';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startManagementHarness, waitFor, type ManagementHarness } from '../../test/support/management-harness';

// the waits for a signal (a relayed record) are generous; a test may make several
jest.setTimeout(60_000);

let h: ManagementHarness;
beforeAll(async () => {
  // "in the bucket before the call returns" must not depend on how fast a busy machine publishes:
  // the longest synchronous wait allowed, so the outbox never has to step in while NATS is up
  h = await startManagementHarness({ REGISTRY_SYNC_TIMEOUT_MS: '10000' });
});
afterAll(async () => {
  await h.stop();
});

const CAMPAIGN = { name: 'Hosts', start_date: '2026-01-01', end_date: '2026-12-31', category: 'Other' };

describe('owner records', () => {
  test('when a user is created, then its record is in the bucket before the create call returns, and nothing is left pending', async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    expect(await h.ownerRecord(sub.unique_id)).toEqual({
      owner_id: sub.unique_id,
      account_id: owner.unique_id,
      created_at: expect.any(String),
      revision: 1,
      redirect_hosts: [],
    });
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({
      owner_id: owner.unique_id,
      account_id: owner.unique_id,
      revision: 1,
    });
    const pending = await (
      await h.db()
    )
      .collection('users')
      .countDocuments({ _id: { $in: [owner.unique_id, sub.unique_id] } as never, registry_pending: true });
    expect(pending).toBe(0);
  });

  test('when content URLs are added and removed, then the record carries their hosts, at a higher revision for each new host (a host already listed changes nothing)', async () => {
    const owner = await h.createAccount();
    const token = owner.api_token;
    const campaign = (await h.request('POST', '/api/v3/campaign/', { token, body: CAMPAIGN })).body;
    const add = (url: string) =>
      h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, { token, body: { url } });
    const a = (await add('https://Shop.Example:8443/a')).body;
    await add('https://bücher.example/b');
    await add('https://shop.example/c');
    const afterAdds = await h.ownerRecord(owner.unique_id);
    expect(afterAdds?.redirect_hosts).toEqual(['shop.example', 'xn--bcher-kva.example']);
    // created at 1; two new hosts; /c's host was listed already
    expect(afterAdds?.revision).toBe(3);

    expect((await h.request('DELETE', `/api/v3/campaign/${campaign.token}/${a.token}/`, { token })).status).toBe(204);
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toEqual(['shop.example', 'xn--bcher-kva.example']); // /c keeps shop.example
    expect((await h.request('DELETE', `/api/v3/campaign/${campaign.token}/`, { token })).status).toBe(204);
    const afterDelete = await h.ownerRecord(owner.unique_id);
    expect(afterDelete?.redirect_hosts).toEqual([]);
    expect(afterDelete?.revision).toBe(5);
  });

  test('when a user is deleted, then a tombstone with a higher revision replaces its record, its campaigns and its document go, and its e-mail is free again', async () => {
    const owner = await h.createAccount();
    const sub = await h.createSubUser(owner.api_token);
    await h.request('POST', '/api/v3/campaign/', { token: sub.api_token, body: CAMPAIGN });
    expect((await h.request('DELETE', `/api/v3/user/${sub.unique_id}/`, { token: owner.api_token })).status).toBe(204);
    expect(await h.ownerRecord(sub.unique_id)).toEqual({
      owner_id: sub.unique_id,
      account_id: owner.unique_id,
      created_at: expect.any(String),
      revision: 2,
      redirect_hosts: [],
      deleted: true,
    });
    const db = await h.db();
    expect(await db.collection('users').countDocuments({ _id: sub.unique_id as never })).toBe(0);
    expect(await db.collection('campaigns').countDocuments({ owner_id: sub.unique_id })).toBe(0);
    const again = await h.request('POST', '/api/v3/user/', {
      token: owner.api_token,
      body: { email: sub.email, password: 'long enough pw' },
    });
    expect(again.status).toBe(200);
    expect(again.body.unique_id).not.toBe(sub.unique_id);
  });

  test('when the bucket holds a newer revision than management writes, then the older write is skipped (no resurrection)', async () => {
    const owner = await h.createAccount();
    const kv = await h.registryBucket();
    const tombstone = {
      owner_id: owner.unique_id,
      account_id: owner.unique_id,
      created_at: 'x',
      revision: 50,
      redirect_hosts: [],
      deleted: true,
    };
    await kv.put(owner.unique_id, encodeOwnerRecord(tombstone));
    const campaign = (await h.request('POST', '/api/v3/campaign/', { token: owner.api_token, body: CAMPAIGN })).body;
    await h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: 'https://late.example/' },
    });
    expect(await h.ownerRecord(owner.unique_id)).toEqual(tombstone);
  });

  test('when a user document and its pending announcement were written but the process died before publishing, then the relay publishes it', async () => {
    const id = `7${Date.now()}`.slice(0, 15);
    const now = new Date();
    await (await h.db()).collection('users').insertOne({
      _id: id as never,
      account_id: id,
      role: 'owner',
      user_name: 'crashed',
      email: `crash-${id}@example.com`,
      email_key: `crash-${id}@example.com`,
      password_hash: 'scrypt$x',
      api_token_enc: 'v1.dev.a.b.c',
      api_token_hash: `crash-${id}`,
      token_keys: 'x',
      timezone: 'UTC',
      target_geography: [],
      created_at: now,
      updated_at: now,
      revision: 1,
      registry_pending: true,
      redirect_hosts: ['relay.example'],
    });
    const record = await waitFor(
      () => h.ownerRecord(id),
      (r) => r !== undefined,
    );
    expect(record).toMatchObject({ owner_id: id, revision: 1, redirect_hosts: ['relay.example'] });
    await waitFor(
      () => h.db().then((db) => db.collection('users').countDocuments({ _id: id as never, registry_pending: true })),
      (n) => n === 0,
    );
  });
});

describe('when NATS is down', () => {
  test('when users are created and deleted while NATS is unreachable, then the calls are answered without it and the relay publishes once NATS is back', async () => {
    const storeDir = mkdtempSync(path.join(os.tmpdir(), 'mgmt-nats-'));
    let nats = await startNatsServer({ storeDir });
    const down = await startManagementHarness({
      NATS_URL: nats.url,
      REGISTRY_SYNC_TIMEOUT_MS: '300',
      REGISTRY_RELAY_INTERVAL_MS: '200',
      OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    });
    try {
      const owner = await down.createAccount();
      const gone = await down.createSubUser(owner.api_token);
      // what NATS took late (a 300 ms sync is short on a busy machine) is relayed before it goes
      await waitFor(
        () => down.metric('management_registry_outbox_pending'),
        (n) => n === 0,
      );
      await nats.stop();
      // answered while NATS is still down (it comes back only after these calls): they do not wait for it
      const sub = await down.createSubUser(owner.api_token);
      expect((await down.request('DELETE', `/api/v3/user/${gone.unique_id}/`, { token: owner.api_token })).status).toBe(
        204,
      );
      expect(await down.metric('management_registry_outbox_pending')).toBe(2);
      // the deleted user's token is refused at once, NATS or not
      expect((await down.request('GET', '/api/v3/campaign/', { token: gone.api_token })).status).toBe(401);

      nats = await startNatsServer({ port: nats.port, storeDir });
      const record = await waitFor(
        () => down.ownerRecord(sub.unique_id),
        (r) => r !== undefined,
        20000,
      );
      expect(record).toMatchObject({ owner_id: sub.unique_id, revision: 1 });
      expect(
        await waitFor(
          () => down.ownerRecord(gone.unique_id),
          (r) => r?.deleted === true,
          20000,
        ),
      ).toMatchObject({ revision: 2, deleted: true });
    } finally {
      await down.stop();
      await nats.stop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
