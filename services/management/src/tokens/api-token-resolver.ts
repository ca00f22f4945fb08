import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { TokenResolver } from '../auth/bearer-auth';
import type { UserTokenStore } from './user-token-store';
import type { TokenVault } from './token-vault';

/**
 * Bearer token -> user through the keyed lookup hash (the token itself is never a query value).
 * While a lookup key is being rotated out, a miss is retried under the previous key.
 */
export class ApiTokenResolver implements TokenResolver {
  constructor(
    private readonly store: Pick<UserTokenStore, 'findByLookupHash'>,
    private readonly vault: Pick<TokenVault, 'lookupHash' | 'previousLookupHash'>,
  ) {}

  async findByApiToken(token: string): Promise<AuthenticatedUser | undefined> {
    const hash = this.vault.lookupHash(token);
    let owner = await this.store.findByLookupHash(hash);
    const previous = owner ? undefined : this.vault.previousLookupHash(token);
    if (previous) owner = await this.store.findByLookupHash(previous);
    return owner ? { unique_id: owner._id, account_id: owner.account_id, role: owner.role } : undefined;
  }
}
