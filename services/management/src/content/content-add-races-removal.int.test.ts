import { connectNats, createLogger, createRegistry, type NatsConnection } from '@cm/platform';
import { createRegistryFeature, type RegistryFeature } from '../registry/registry-feature';
import { RedirectHostService } from '../redirect-hosts/redirect-host-service';
import { startManagementHarness, waitFor, type ManagementHarness } from '../../test/support/management-harness';
import { MongoUserStore } from '../users/user-store';
import { ContentService } from './content-service';
import { MongoContentStore } from './content-store';

let h: ManagementHarness;
let nc: NatsConnection;
let registry: RegistryFeature;
/** A second replica's content path over the same database and bucket, whose add the test can hold. */
let replica: (afterPlacement: () => Promise<void>) => ContentService;

beforeAll(async () => {
  h = await startManagementHarness();
  const db = await h.db();
  const logger = createLogger({ service: 'replica-test', level: 'error', silent: true });
  nc = await connectNats({ url: h.config.NATS_URL, name: 'replica-test', logger });
  const contentStore = new MongoContentStore(db, 1000);
  const contentHosts = (ownerId: string) => contentStore.distinctHosts(ownerId);
  registry = await createRegistryFeature({
    nc,
    db,
    config: h.config,
    logger,
    metrics: createRegistry('replica_test'),
    contentHosts,
    contentHostsByOwner: (ids) => contentStore.distinctHostsByOwner(ids),
    backfillHosts: async () => 0,
    cleanup: async () => undefined,
  });
  const redirectHosts = new RedirectHostService({
    store: new MongoUserStore(db),
    contentHosts,
    announcer: registry.announcer,
    quota: 100,
  });
  replica = (afterPlacement) =>
    new ContentService({
      store: contentStore,
      titles: { request: () => undefined },
      hostsChanged: (ownerId) => registry.announcer.ownerChanged(ownerId),
      // this test is about the owner record; the campaign's record has its own tests
      campaignChanged: async () => undefined,
      // the add has decided where its host stands, then waits: the moment a concurrent removal slips in
      placeForHost: async (ownerId, host) => {
        const place = await redirectHosts.placeFor(ownerId, host);
        await afterPlacement();
        return place;
      },
      recordRevision: (ownerId) => redirectHosts.revisionOf(ownerId),
      timezoneOf: async () => 'UTC',
      maxItemsPerCampaign: 1000,
    });
});
afterAll(async () => {
  await registry.stop();
  await nc.close();
  await h.stop();
});

describe('a content add racing the removal of content with the same host', () => {
  test('when the removal and its announcement finish between the add checking the host and storing its item, then the record still lists the host', async () => {
    const owner = await h.createAccount();
    const campaign = (
      await h.request('POST', '/api/v3/campaign/', {
        token: owner.api_token,
        body: { name: 'Race', start_date: '2026-01-01', end_date: '2026-02-01', category: 'Other' },
      })
    ).body.token as string;
    const first = (
      await h.request('POST', `/api/v3/campaign/${campaign}/content/`, {
        token: owner.api_token,
        body: { url: 'https://192.0.2.88/first' },
      })
    ).body.token as string;
    let placed!: () => void;
    const reached = new Promise<void>((resolve) => (placed = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const adding = replica(async () => {
      placed();
      await held;
    }).add({ unique_id: owner.unique_id, account_id: owner.unique_id, role: 'owner' }, campaign, {
      url: 'https://192.0.2.88/second',
    });

    // the add has seen the first item's host (listed): now the removal runs to its end
    await reached;
    expect(
      (await h.request('DELETE', `/api/v3/campaign/${campaign}/${first}/`, { token: owner.api_token })).status,
    ).toBe(204);
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toEqual([]);
    release();
    await adding;

    const users = (await h.db()).collection<{ _id: string; registry_pending?: true }>('users');
    await waitFor(
      () => users.findOne({ _id: owner.unique_id }),
      (user) => user !== null && user.registry_pending === undefined,
    );
    expect((await h.ownerRecord(owner.unique_id))?.redirect_hosts).toEqual(['192.0.2.88']);
  });
});
