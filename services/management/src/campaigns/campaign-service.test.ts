import { ConflictError, NotFoundError, ValidationError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { PageCursors } from '../pagination/page-cursors';
import { CampaignService } from './campaign-service';
import { InMemoryCampaignStore } from './in-memory-campaign-store';

const alice: AuthenticatedUser = { unique_id: '1001', account_id: '1001', role: 'owner' };
const bob: AuthenticatedUser = { unique_id: '2002', account_id: '2002', role: 'owner' };
const valid = { name: 'Spring sale', start_date: '2024-03-01', end_date: '2024-03-31', category: 'Food / Drink' };

function setup(maxCampaigns = 5) {
  const store = new InMemoryCampaignStore();
  let clock = Date.parse('2024-03-10T12:00:00Z');
  const hostsChanged: string[] = [];
  const campaignsChanged: string[] = [];
  const service = new CampaignService({
    store,
    timezoneOf: async () => 'UTC',
    hostsChanged: async (ownerId) => void hostsChanged.push(ownerId),
    campaignChanged: async (token) => void campaignsChanged.push(token),
    maxCampaigns,
    cursors: new PageCursors(Buffer.alloc(32, 7)),
    now: () => new Date(clock),
  });
  return { store, service, hostsChanged, campaignsChanged, pass: (ms: number) => (clock += ms) };
}

describe('CampaignService over an in-memory store', () => {
  test('when a campaign is created with the required fields only, then unset optionals are null / [] and it is listed with its time', async () => {
    const { service } = setup();
    const created = await service.create(alice, valid);
    expect(created).toEqual({
      ...valid,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      brand: null,
      reach: null,
      objective: null,
      target_geography: [],
      last_modified: '2024-03-10 12:00:00',
    });
    expect(await service.list(alice)).toEqual([created]);
  });

  test('when start_date is after end_date, then a validation error naming start_date and nothing is stored', async () => {
    const { service, store } = setup();
    await expect(service.create(alice, { ...valid, start_date: '2024-04-01' })).rejects.toMatchObject({
      details: [{ field: 'start_date' }],
    });
    await expect(service.create(alice, { ...valid, start_date: '2024-04-01' })).rejects.toBeInstanceOf(ValidationError);
    expect(store.docs.size).toBe(0);
  });

  test('when the owner is at the quota, then the next create is a conflict and another owner is not affected', async () => {
    const { service } = setup(2);
    await service.create(alice, valid);
    await service.create(alice, valid);
    await expect(service.create(alice, valid)).rejects.toBeInstanceOf(ConflictError);
    await expect(service.create(bob, valid)).resolves.toMatchObject({ name: valid.name });
  });

  test("when another owner's campaign is read, edited or deleted, then not found and it is unchanged", async () => {
    const { service } = setup();
    const { token } = await service.create(alice, valid);
    await expect(service.read(bob, token)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.edit(bob, token, { name: 'taken' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.delete(bob, token)).rejects.toBeInstanceOf(NotFoundError);
    expect(await service.list(bob)).toEqual([]);
    expect((await service.read(alice, token)).name).toBe(valid.name);
  });

  test('when some fields are edited, then the rest stay and last_modified moves to the clock', async () => {
    const { service, pass } = setup();
    const created = await service.create(alice, { ...valid, brand: 'Acme', reach: 10 });
    pass(60_000);
    expect(await service.edit(alice, created.token, { end_date: '2024-04-30', objective: 'Reach' })).toEqual({
      token: created.token,
      start_date: valid.start_date,
      end_date: '2024-04-30',
      category: valid.category,
      brand: 'Acme',
      reach: 10,
      target_geography: [],
      objective: 'Reach',
    });
    expect((await service.list(alice))[0]!.last_modified).toBe('2024-03-10 12:01:00');
  });

  test('when an edit is empty, then the current data is answered and last_modified stays', async () => {
    const { service, pass } = setup();
    const created = await service.create(alice, valid);
    pass(60_000);
    const { name: _n, last_modified: _lm, ...editView } = created;
    expect(await service.edit(alice, created.token, {})).toEqual(editView);
    expect(await service.list(alice)).toEqual([created]);
  });

  test('when an edit would put start_date after the stored end_date, then a validation error and nothing changes', async () => {
    const { service } = setup();
    const { token } = await service.create(alice, valid);
    await expect(service.edit(alice, token, { start_date: '2024-05-01' })).rejects.toBeInstanceOf(ValidationError);
    expect((await service.read(alice, token)).start_date).toBe(valid.start_date);
  });

  test('when every edit attempt loses to a concurrent edit, then a conflict', async () => {
    const { service, store } = setup();
    const { token } = await service.create(alice, valid);
    // another writer bumps the version between each read and write
    store.update = async () => null;
    await expect(service.edit(alice, token, { name: 'mine' })).rejects.toBeInstanceOf(ConflictError);
  });

  test('when a campaign is deleted, then it is gone and the owner is announced; deleting it again is not found', async () => {
    const { service, hostsChanged } = setup();
    const { token } = await service.create(alice, valid);
    await service.delete(alice, token);
    expect(hostsChanged).toEqual([alice.unique_id]);
    await expect(service.read(alice, token)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.delete(alice, token)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('when the list is paged, then pages follow creation order without gaps or repeats', async () => {
    const { service, pass } = setup();
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      names.push((await service.create(alice, { ...valid, name: `c${i}` })).name);
      pass(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.listPage(alice, 2, cursor);
      seen.push(...page.items.map((c) => c.name));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(names);
  });

  test('when a campaign is created, edited and deleted, then each write raises its record revision, leaves it pending and announces it', async () => {
    const { service, store, campaignsChanged } = setup();
    const { token } = await service.create(alice, valid);
    expect(store.docs.get(token)).toMatchObject({ revision: 1, registry_pending: true });
    await service.edit(alice, token, { end_date: '2024-04-30' });
    expect(store.docs.get(token)).toMatchObject({ revision: 2, registry_pending: true });
    await service.edit(alice, token, {});
    await service.delete(alice, token);
    // deleted: marked until its tombstone is announced, then the announcer removes it
    expect(store.docs.get(token)).toMatchObject({ revision: 3, registry_pending: true, deleted_at: expect.any(Date) });
    expect(campaignsChanged).toEqual([token, token, token]);
    expect(await service.list(alice)).toEqual([]);
  });
});
