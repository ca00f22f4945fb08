import type { Collection } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { UserDocument } from '../users/user-store';
import { TokenDecryptError, type TokenVault } from './token-vault';

/** A document written before tokens were sealed: the token in clear, no hash. */
interface LegacyTokenFields {
  api_token?: string;
}

export interface RekeyResult {
  /** Documents brought to the current keys (plaintext migrated, resealed, rehashed). */
  rekeyed: number;
  /** Documents whose token could not be opened (their key is no longer configured); logged by id. */
  unreadable: number;
  /** Documents still not on the current keys after the pass (unreadable ones, or changed meanwhile). */
  remaining: number;
}

/**
 * Brings every user's stored token to the current keys: migrates plaintext `api_token` documents
 * (written before tokens were sealed), reseals under the first TOKEN_ENCRYPTION_KEYS key and redoes
 * the lookup hash under TOKEN_LOOKUP_KEY. Runs at start and on the operator's request; idempotent,
 * and safe beside live writes: each update is conditional on the value it read.
 */
export class TokenRekey {
  constructor(
    private readonly users: Collection<UserDocument & LegacyTokenFields>,
    private readonly vault: TokenVault,
    private readonly logger: Logger,
  ) {}

  async run(): Promise<RekeyResult> {
    const stale = { deleted_at: { $exists: false }, token_keys: { $ne: this.vault.keysTag } };
    let rekeyed = 0;
    let unreadable = 0;
    const cursor = this.users.find(stale, { projection: { api_token: 1, api_token_enc: 1, api_token_hash: 1 } });
    for await (const doc of cursor) {
      const token = this.tokenOf(doc);
      if (token === undefined) {
        unreadable++;
        continue;
      }
      // the value read is the condition: a rotation in between wins, and this document is left alone
      const unchanged =
        doc.api_token !== undefined
          ? { _id: doc._id, api_token: doc.api_token }
          : { _id: doc._id, api_token_hash: doc.api_token_hash };
      const result = await this.users.updateOne(unchanged, {
        $set: this.vault.seal(token, doc._id),
        $unset: { api_token: '' },
      });
      rekeyed += result.modifiedCount;
    }
    const remaining = await this.users.countDocuments(stale);
    if (rekeyed > 0 || remaining > 0) this.logger.info('api tokens rekeyed', { rekeyed, unreadable, remaining });
    return { rekeyed, unreadable, remaining };
  }

  private tokenOf(
    doc: Pick<UserDocument & LegacyTokenFields, '_id' | 'api_token' | 'api_token_enc'>,
  ): string | undefined {
    if (doc.api_token !== undefined) return doc.api_token;
    try {
      return this.vault.open(doc.api_token_enc, doc._id);
    } catch (err) {
      if (!(err instanceof TokenDecryptError)) throw err;
      this.logger.error('api token cannot be opened with the configured keys; keep its key in TOKEN_ENCRYPTION_KEYS', {
        user_id: doc._id,
        reason: err.message,
      });
      return undefined;
    }
  }
}
