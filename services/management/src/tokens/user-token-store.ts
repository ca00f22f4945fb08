import type { Collection } from 'mongodb';
import { ensureIndexes } from '@cm/platform';
import type { UserDocument } from '../users/user-store';

/** The fields bearer auth needs about the user a token belongs to. */
export type TokenOwner = Pick<UserDocument, '_id' | 'account_id' | 'role'>;

/** Before tokens were sealed, the plaintext token had this unique index. */
const LEGACY_TOKEN_INDEX = 'api_token_unique';

/** The token fields of the users collection: the lookup index and the lookup. */
export class UserTokenStore {
  constructor(private readonly users: Collection<UserDocument>) {}

  /**
   * Drops the plaintext token's unique index: once the rekey pass has moved tokens out of
   * `api_token`, every document would index as null there and collide.
   */
  async dropLegacyIndex(): Promise<void> {
    await this.users.dropIndex(LEGACY_TOKEN_INDEX).catch((err: { codeName?: string; code?: number }) => {
      if (
        err.codeName !== 'IndexNotFound' &&
        err.code !== 27 &&
        err.codeName !== 'NamespaceNotFound' &&
        err.code !== 26
      )
        throw err;
    });
  }

  /** After the rekey pass: every live document has a hash by then, so the unique index can be built. */
  async ensureLookupIndex(): Promise<void> {
    await ensureIndexes(this.users, [
      // bearer auth: findByLookupHash on every /api/v3/ request
      {
        key: { api_token_hash: 1 },
        options: { unique: true, name: 'api_token_hash_unique' },
        serves: 'findByLookupHash',
      },
    ]);
  }

  findByLookupHash(hash: string): Promise<TokenOwner | null> {
    return this.users.findOne({ api_token_hash: hash }, { projection: { _id: 1, account_id: 1, role: 1 } });
  }
}
