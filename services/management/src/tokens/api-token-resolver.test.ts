import type { AuthenticatedUser } from '../auth/authenticated-user';
import { PageCursors } from '../pagination/page-cursors';
import { InMemoryUserStore } from '../users/in-memory-user-store';
import { UserService } from '../users/user-service';
import { ApiTokenResolver } from './api-token-resolver';
import { tokenKeyringFrom } from './token-keys';
import { TokenVault } from './token-vault';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const vaultWith = (lookup: string, previous?: string) =>
  new TokenVault(
    tokenKeyringFrom({
      TOKEN_ENCRYPTION_KEYS: `k1:${key(1)}`,
      TOKEN_LOOKUP_KEY: lookup,
      TOKEN_LOOKUP_KEY_PREVIOUS: previous,
    }),
  );

/** Users written by the real service through a vault, and a resolver (over the same in-memory users) through another. */
function setup(writeVault: TokenVault, readVault = writeVault) {
  const store = new InMemoryUserStore();
  const users = new UserService({
    store,
    announcer: { announce: async () => {} },
    vault: writeVault,
    maxSubUsers: 5,
    cursors: new PageCursors(Buffer.alloc(32, 4)),
    hashPassword: async (p) => `hashed:${p}`,
  });
  const lookup = {
    findByLookupHash: async (hash: string) => [...store.docs.values()].find((d) => d.api_token_hash === hash) ?? null,
  };
  return { users, lookup, resolver: new ApiTokenResolver(lookup, readVault) };
}

describe('ApiTokenResolver over in-memory users', () => {
  test('when a token is presented, then its user is found; an unknown token finds nobody', async () => {
    const { users, resolver } = setup(vaultWith(key(9)));
    const owner = await users.createAccount({ email: 'alice@example.com', password: 'correct horse' });
    expect(await resolver.findByApiToken(owner.api_token)).toEqual({
      unique_id: owner.unique_id,
      account_id: owner.unique_id,
      role: 'owner',
    });
    expect(await resolver.findByApiToken(`${owner.api_token}x`)).toBeUndefined();
  });

  test('when a token is rotated, then the old one finds nobody and the new one finds the user', async () => {
    const { users, resolver } = setup(vaultWith(key(9)));
    const owner = await users.createAccount({ email: 'alice@example.com', password: 'correct horse' });
    const caller: AuthenticatedUser = { unique_id: owner.unique_id, account_id: owner.unique_id, role: 'owner' };
    const rotated = await users.rotateToken(caller, owner.unique_id);
    expect(await resolver.findByApiToken(owner.api_token)).toBeUndefined();
    expect(await resolver.findByApiToken(rotated.api_token)).toEqual(caller);
  });

  test('when a sub-user is deleted, then its token finds nobody', async () => {
    const { users, resolver } = setup(vaultWith(key(9)));
    const owner = await users.createAccount({ email: 'alice@example.com', password: 'correct horse' });
    const caller: AuthenticatedUser = { unique_id: owner.unique_id, account_id: owner.unique_id, role: 'owner' };
    const sub = await users.createSubUser(caller, { email: 'sub@example.com', password: 'correct horse' });
    expect(await resolver.findByApiToken(sub.api_token)).toMatchObject({
      role: 'sub_user',
      account_id: owner.unique_id,
    });
    await users.deleteUser(caller, sub.unique_id);
    expect(await resolver.findByApiToken(sub.api_token)).toBeUndefined();
  });

  test('when the lookup key is being rotated, then a token hashed under the previous key is still found; once it is dropped, not', async () => {
    const { users, lookup, resolver } = setup(vaultWith(key(8)), vaultWith(key(9), key(8)));
    const owner = await users.createAccount({ email: 'alice@example.com', password: 'correct horse' });
    expect(await resolver.findByApiToken(owner.api_token)).toMatchObject({ unique_id: owner.unique_id });
    const afterRotation = new ApiTokenResolver(lookup, vaultWith(key(9)));
    expect(await afterRotation.findByApiToken(owner.api_token)).toBeUndefined();
  });
});
