import { encodeOwnerRecord, type OwnerRecord } from '@cm/contracts';
import {
  TEST_ADMIN_TOKEN,
  startManagementHarness,
  waitFor,
  type ManagementHarness,
} from '../../test/support/management-harness';

let h: ManagementHarness;
beforeAll(async () => {
  h = await startManagementHarness();
});
afterAll(async () => {
  await h.stop();
});

const reconcile = async () => {
  const res = await h.request('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN });
  expect(res.status).toBe(200);
  return res.body.corrections as number;
};
const corrections = (kind: string) => h.metric('management_registry_corrections_total', ['kind', kind]);
let ids = 0;
const unknownId = () => `8${Date.now()}${++ids}`.slice(0, 15);
const liveRecord = (id: string, revision = 3): OwnerRecord => ({
  owner_id: id,
  account_id: id,
  created_at: '2026-01-01T00:00:00.000Z',
  revision,
  redirect_hosts: ['stale.example'],
});

describe('owner registry reconciliation', () => {
  test('when the bucket has a live record for a user that does not exist, then a pass replaces it by a tombstone one revision higher', async () => {
    const id = unknownId();
    const before = await corrections('stale');
    await (await h.registryBucket()).put(id, encodeOwnerRecord(liveRecord(id, 3)));
    await reconcile(); // the start-up pass may still be running and get there first: either counts it once
    expect(await h.ownerRecord(id)).toEqual({ ...liveRecord(id, 4), redirect_hosts: [], deleted: true });
    expect(await corrections('stale')).toBe(before + 1);
    // the tombstone is young: the next pass leaves it
    await reconcile();
    expect((await h.ownerRecord(id))?.deleted).toBe(true);
  });

  test('when a key holds a value that is not an owner record and no user, then a pass purges it', async () => {
    const id = unknownId();
    const kv = await h.registryBucket();
    await kv.put(id, 'not a record');
    await reconcile();
    const entry = await kv.get(id);
    expect(entry === null || entry.operation !== 'PUT').toBe(true);
  });

  test('when a user and its record still carry a wildcard over a public suffix from before those were refused, then a pass rewrites the record without it', async () => {
    const owner = await h.createAccount();
    const stored = ['*.com', 'shop.example', '*.github.io'];
    const users = (await h.db()).collection<{ _id: string; revision: number; redirect_hosts: string[] }>('users');
    await users.updateOne({ _id: owner.unique_id }, { $set: { redirect_hosts: stored } });
    const revision = (await users.findOne({ _id: owner.unique_id }))!.revision;
    await (
      await h.registryBucket()
    ).put(
      owner.unique_id,
      encodeOwnerRecord({ ...(await h.ownerRecord(owner.unique_id))!, revision, redirect_hosts: stored }),
    );
    await reconcile();
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({
      revision: revision + 1,
      redirect_hosts: ['shop.example'],
    });
  });

  test("when a user's key is missing, then a pass puts its record back at its revision", async () => {
    const owner = await h.createAccount();
    const before = await corrections('missing');
    await (await h.registryBucket()).purge(owner.unique_id);
    expect(await h.ownerRecord(owner.unique_id)).toBeUndefined();
    await reconcile();
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({
      owner_id: owner.unique_id,
      revision: 1,
      redirect_hosts: [],
    });
    expect(await corrections('missing')).toBe(before + 1);
  });

  test('when the bucket holds an older revision, then a pass writes the current one', async () => {
    const owner = await h.createAccount();
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'R', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body;
    await h.request('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: 'https://current.example/a' },
    });
    const current = await h.ownerRecord(owner.unique_id);
    await (
      await h.registryBucket()
    ).put(owner.unique_id, encodeOwnerRecord({ ...current!, revision: 1, redirect_hosts: ['old.example'] }));
    await reconcile();
    expect(await h.ownerRecord(owner.unique_id)).toEqual(current);
  });

  test('when the bucket says something else at the same revision (a change that never got its revision), then the user moves past it and the current state is written', async () => {
    const owner = await h.createAccount();
    const db = await h.db();
    // a content URL written straight into the campaign, as if the process died before the revision bump
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'D', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body;
    const before = await corrections('diverged');
    await db.collection('campaigns').updateOne({ _id: campaign.token } as never, {
      $push: {
        content: {
          token: 'x'.repeat(22),
          url: 'https://crashed.example/',
          host: 'crashed.example',
          content_type: null,
          added: new Date(),
          title: '',
          title_state: 'done',
        },
      } as never,
    });
    await reconcile();
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({ revision: 2, redirect_hosts: ['crashed.example'] });
    expect((await db.collection('users').findOne({ _id: owner.unique_id as never }))?.revision).toBe(2);
    expect(await corrections('diverged')).toBe(before + 1);
  });

  test('when a live user has a tombstone of a higher revision (an id restored from a backup), then the user moves past it and is live again', async () => {
    const owner = await h.createAccount();
    await (
      await h.registryBucket()
    ).put(
      owner.unique_id,
      encodeOwnerRecord({ ...(await h.ownerRecord(owner.unique_id))!, revision: 9, deleted: true }),
    );
    await reconcile();
    expect(await h.ownerRecord(owner.unique_id)).toMatchObject({ revision: 10, redirect_hosts: [] });
    expect((await h.ownerRecord(owner.unique_id))?.deleted).toBeUndefined();
  });

  test('when everything agrees, then a pass corrects nothing', async () => {
    await reconcile();
    expect(await reconcile()).toBe(0);
  });

  test('when the reconcile endpoint is called without the operator token, then 401', async () => {
    expect((await h.request('POST', '/admin/v1/registry/reconcile')).status).toBe(401);
  });

  test.each([
    ['an unknown field', { owner_id: '1' }],
    ['an operator object', { $where: 'x' }],
    ['a huge field', { x: 'y'.repeat(20_000) }],
  ])('when the reconcile endpoint gets a body with %s, then 400 and no pass runs', async (_name, body) => {
    const before = await corrections('stale');
    const id = unknownId();
    await (await h.registryBucket()).put(id, encodeOwnerRecord(liveRecord(id)));
    const res = await h.request('POST', '/admin/v1/registry/reconcile', { token: TEST_ADMIN_TOKEN, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(await h.ownerRecord(id)).toEqual(liveRecord(id));
    expect(await corrections('stale')).toBe(before);
    await reconcile(); // leave the bucket clean for the next test
  });
});

describe('upgrade from the outbox version', () => {
  test('when content items have no host and the old outbox collection exists, then the first pass backfills the hosts, announces them and drops the outbox', async () => {
    const first = await startManagementHarness();
    const owner = await first.createAccount();
    const campaign = (
      await first.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'U', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body;
    await first.request('POST', `/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: 'https://legacy.example/a' },
    });
    await first.stop();
    const db = await h.db().then((own) => own.client.db(first.config.MONGO_DB));
    // as the previous version left them: items without host, users without revision, an outbox entry
    await db.collection('campaigns').updateOne({ _id: campaign.token } as never, { $unset: { 'content.0.host': '' } });
    await db.collection('users').updateOne({ _id: owner.unique_id as never }, { $unset: { revision: '' } });
    await db.collection('registry_outbox').insertOne({ _id: owner.unique_id as never, queued_at: new Date() });

    const upgraded = await startManagementHarness({
      MONGO_DB: first.config.MONGO_DB,
      OWNER_REGISTRY_BUCKET: first.config.OWNER_REGISTRY_BUCKET,
    });
    try {
      const udb = await upgraded.db();
      await waitFor(
        () => udb.listCollections({}, { nameOnly: true }).toArray(),
        (collections) => collections.every((c) => c.name !== 'registry_outbox'),
      );
      expect((await udb.collection('campaigns').findOne({ _id: campaign.token } as never))?.content[0].host).toBe(
        'legacy.example',
      );
      expect(await upgraded.ownerRecord(owner.unique_id)).toMatchObject({ redirect_hosts: ['legacy.example'] });
    } finally {
      await upgraded.stop();
    }
  });
});
