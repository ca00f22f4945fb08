import { ConflictError, ForbiddenError, NotFoundError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { PageCursors } from '../pagination/page-cursors';
import { InMemoryUserStore } from './in-memory-user-store';
import { UserService } from './user-service';

const password = 'correct horse';

/** Seals a token as `<user id>:<token>` so a test can see which user it was sealed for. */
const vault = {
  seal: (token: string, userId: string) => ({
    api_token_enc: `${userId}:${token}`,
    api_token_hash: `hash:${token}`,
    token_keys: 'test',
  }),
  open: (sealed: string, userId: string) => sealed.slice(userId.length + 1),
};

function setup(maxSubUsers = 3) {
  const store = new InMemoryUserStore();
  let clock = Date.parse('2024-03-10T12:00:00Z');
  const announced: string[] = [];
  const service = new UserService({
    store,
    announcer: { announce: async (id) => void announced.push(id) },
    vault,
    maxSubUsers,
    cursors: new PageCursors(Buffer.alloc(32, 9)),
    hashPassword: async (p) => `hashed:${p}`,
    now: () => new Date(clock),
  });
  const ownerOf = async (email: string): Promise<AuthenticatedUser> => {
    const { unique_id } = await service.createAccount({ email, password });
    return { unique_id, account_id: unique_id, role: 'owner' };
  };
  return { store, service, announced, ownerOf, pass: (ms: number) => (clock += ms) };
}

describe('UserService over an in-memory store', () => {
  test('when an account is created, then the user name defaults to the e-mail, the password is stored hashed and the record is announced', async () => {
    const { service, store, announced } = setup();
    const view = await service.createAccount({ email: 'Alice@Example.com', password });
    expect(view).toEqual({
      user_name: 'Alice@Example.com',
      email: 'Alice@Example.com',
      unique_id: expect.stringMatching(/^[1-9]\d{14}$/),
      api_token: expect.any(String),
    });
    const doc = store.docs.get(view.unique_id)!;
    expect(doc).toMatchObject({
      account_id: view.unique_id,
      role: 'owner',
      password_hash: `hashed:${password}`,
      email_key: 'alice@example.com',
      timezone: 'UTC',
      revision: 1,
      registry_pending: true,
    });
    expect(doc.api_token_enc).toBe(`${view.unique_id}:${view.api_token}`);
    expect(announced).toEqual([view.unique_id]);
  });

  test('when an e-mail is registered again in another case, then a conflict naming email and nothing is announced', async () => {
    const { service, announced } = setup();
    await service.createAccount({ email: 'bob@example.com', password });
    const again = service.createAccount({ email: 'BOB@example.com', password });
    await expect(again).rejects.toBeInstanceOf(ConflictError);
    await expect(service.createAccount({ email: 'BOB@example.com', password })).rejects.toMatchObject({
      details: [{ field: 'email' }],
    });
    expect(announced).toHaveLength(1);
  });

  test('when an owner is at the sub-user quota, then the next create is a conflict and another account is not affected', async () => {
    const { service, ownerOf } = setup(2);
    const alice = await ownerOf('alice@example.com');
    const bob = await ownerOf('bob@example.com');
    await service.createSubUser(alice, { email: 's1@example.com', password });
    await service.createSubUser(alice, { email: 's2@example.com', password });
    await expect(service.createSubUser(alice, { email: 's3@example.com', password })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(service.createSubUser(bob, { email: 's3@example.com', password })).resolves.toMatchObject({
      email: 's3@example.com',
    });
  });

  test('when a sub-user manages users, then forbidden; it may rotate only its own token', async () => {
    const { service, ownerOf } = setup();
    const alice = await ownerOf('alice@example.com');
    const sub = await service.createSubUser(alice, { email: 'sub@example.com', password });
    const asSub: AuthenticatedUser = { unique_id: sub.unique_id, account_id: alice.account_id, role: 'sub_user' };
    await expect(service.createSubUser(asSub, { email: 'x@example.com', password })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(service.listSubUsers(asSub)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(service.editUser(asSub, sub.unique_id, { user_name: 'me' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(service.deleteUser(asSub, sub.unique_id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(service.rotateToken(asSub, alice.unique_id)).rejects.toBeInstanceOf(ForbiddenError);
    const rotated = await service.rotateToken(asSub, sub.unique_id);
    expect(rotated.api_token).not.toBe(sub.api_token);
    expect((await service.listSubUsers(alice))[0]!.api_token).toBe(rotated.api_token);
  });

  test("when another account's user is edited, rotated or deleted, then not found and it is unchanged", async () => {
    const { service, store, ownerOf } = setup();
    const alice = await ownerOf('alice@example.com');
    const bob = await ownerOf('bob@example.com');
    const sub = await service.createSubUser(alice, { email: 'sub@example.com', password });
    await expect(service.editUser(bob, sub.unique_id, { user_name: 'taken' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.editUser(bob, sub.unique_id, {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.rotateToken(bob, sub.unique_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.deleteUser(bob, sub.unique_id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await service.listSubUsers(bob)).toEqual([]);
    expect(await service.listSubUsers(alice)).toEqual([sub]);
    expect(store.docs.get(sub.unique_id)!.deleted_at).toBeUndefined();
  });

  test('when a user is edited, then only the given fields change, an empty user_name falls back to the e-mail and an empty edit changes nothing', async () => {
    const { service, store, ownerOf, pass } = setup();
    const alice = await ownerOf('alice@example.com');
    const sub = await service.createSubUser(alice, { email: 'sub@example.com', user_name: 'Sub', password });
    pass(60_000);
    expect(await service.editUser(alice, sub.unique_id, {})).toEqual(sub);
    expect(store.docs.get(sub.unique_id)!.updated_at.toISOString()).toBe('2024-03-10T12:00:00.000Z');
    expect(await service.editUser(alice, sub.unique_id, { timezone: 'Europe/Rome', password: 'another one' })).toEqual(
      sub,
    );
    expect(store.docs.get(sub.unique_id)).toMatchObject({
      user_name: 'Sub',
      timezone: 'Europe/Rome',
      password_hash: 'hashed:another one',
      updated_at: new Date('2024-03-10T12:01:00Z'),
    });
    expect((await service.editUser(alice, sub.unique_id, { user_name: '' })).user_name).toBe('sub@example.com');
  });

  test('when an owner deletes itself, then forbidden; when it deletes a sub-user, then the e-mail is free again and the tombstone is announced', async () => {
    const { service, store, announced, ownerOf } = setup();
    const alice = await ownerOf('alice@example.com');
    await expect(service.deleteUser(alice, alice.unique_id)).rejects.toBeInstanceOf(ForbiddenError);
    const sub = await service.createSubUser(alice, { email: 'sub@example.com', password });
    await service.deleteUser(alice, sub.unique_id);
    expect(announced.at(-1)).toBe(sub.unique_id);
    expect(store.docs.get(sub.unique_id)).toMatchObject({
      registry_pending: true,
      revision: 2,
      deleted_at: expect.any(Date),
    });
    expect(await service.listSubUsers(alice)).toEqual([]);
    await expect(service.deleteUser(alice, sub.unique_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.createSubUser(alice, { email: 'sub@example.com', password })).resolves.toMatchObject({
      email: 'sub@example.com',
    });
  });

  test('when the sub-user list is paged, then pages follow creation order without gaps or repeats', async () => {
    const { service, ownerOf, pass } = setup(10);
    const alice = await ownerOf('alice@example.com');
    const emails: string[] = [];
    for (let i = 0; i < 5; i++) {
      emails.push((await service.createSubUser(alice, { email: `s${i}@example.com`, password })).email);
      pass(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.listSubUsersPage(alice, 2, cursor);
      seen.push(...page.items.map((u) => u.email));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(emails);
  });
});
