import { OWNER_RECORD_LIMITS } from '@cm/contracts';
import { ConflictError, NotFoundError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { UserDocument } from '../users/user-store';
import { RedirectHostService } from './redirect-host-service';

const alice: AuthenticatedUser = { unique_id: '1001', account_id: '1001', role: 'owner' };
const ghost: AuthenticatedUser = { unique_id: '9009', account_id: '9009', role: 'owner' };

/** The two user-store calls the service makes, over live users in a Map (a write bumps the record revision as the store does). */
function setup(contentHosts: string[] = [], quota = 3) {
  const users = new Map<string, Pick<UserDocument, 'redirect_hosts' | 'revision'>>([
    [alice.unique_id, { redirect_hosts: [], revision: 1 }],
  ]);
  const announced: string[] = [];
  const service = new RedirectHostService({
    store: {
      findLive: async (id) => (users.has(id) ? (structuredClone(users.get(id)) as UserDocument) : null),
      setRedirectHosts: async (id, hosts) => {
        const user = users.get(id);
        if (!user) return false;
        Object.assign(user, { redirect_hosts: hosts, revision: (user.revision ?? 0) + 1 });
        return true;
      },
    },
    contentHosts: async () => contentHosts,
    announcer: { announce: async (id) => void announced.push(id) },
    quota,
    now: () => new Date('2024-03-10T12:00:00Z'),
  });
  return { service, announced };
}

describe('RedirectHostService over an in-memory user record', () => {
  test('when hosts are set, then they are answered with the content hosts, read back and announced', async () => {
    const { service, announced } = setup(['shop.example']);
    expect(await service.set(alice, ['dest.example'])).toEqual({
      hosts: ['dest.example'],
      content_hosts: ['shop.example'],
    });
    expect(await service.get(alice)).toEqual({ hosts: ['dest.example'], content_hosts: ['shop.example'] });
    expect(announced).toEqual([alice.unique_id]);
  });

  test('when more explicit hosts than the quota are set, then a conflict and nothing is stored or announced', async () => {
    const { service, announced } = setup([], 2);
    await expect(service.set(alice, ['a.example', 'b.example', 'c.example'])).rejects.toBeInstanceOf(ConflictError);
    expect((await service.get(alice)).hosts).toEqual([]);
    expect(announced).toEqual([]);
  });

  test('when explicit and content hosts together pass the record limit, then a conflict', async () => {
    const content = Array.from({ length: OWNER_RECORD_LIMITS.redirectHosts }, (_, i) => `h${i}.example`);
    const { service } = setup(content, 5);
    await expect(service.set(alice, ['new.example'])).rejects.toBeInstanceOf(ConflictError);
    // a host the content already brings does not count twice
    await expect(service.set(alice, ['h0.example'])).resolves.toMatchObject({ hosts: ['h0.example'] });
  });

  test('when the user does not exist, then get and set are not found and nothing is announced', async () => {
    const { service, announced } = setup();
    await expect(service.get(ghost)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.set(ghost, ['a.example'])).rejects.toBeInstanceOf(NotFoundError);
    expect(announced).toEqual([]);
  });

  test('when a content host is placed, then listed if already allowed, free if there is room, and the revision read comes along', async () => {
    const { service } = setup(['shop.example']);
    await service.set(alice, ['dest.example']);
    expect(await service.placeFor(alice.unique_id, '')).toEqual({ place: 'listed' });
    expect(await service.placeFor(alice.unique_id, 'dest.example')).toEqual({ place: 'listed', revision: 2 });
    expect(await service.placeFor(alice.unique_id, 'shop.example')).toEqual({ place: 'listed', revision: 2 });
    expect(await service.placeFor(alice.unique_id, 'new.example')).toEqual({ place: 'free', revision: 2 });
    expect(await service.revisionOf(ghost.unique_id)).toBeUndefined();
  });

  test('when the record is full, then a new host is placed as full', async () => {
    const { service } = setup(Array.from({ length: OWNER_RECORD_LIMITS.redirectHosts }, (_, i) => `h${i}.example`));
    expect((await service.placeFor(alice.unique_id, 'new.example')).place).toBe('full');
  });
});
