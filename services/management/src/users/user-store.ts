import type { Collection, Db, Filter } from 'mongodb';
import type { PagePosition } from '../pagination/page-cursors';
import { afterPosition } from '../pagination/page-query';
import { ensureIndexes, isDuplicateKeyError } from '@cm/platform';
import type { UserRole } from '../auth/authenticated-user';
import { LIVE, announcing, type RegistryFields } from '../registry/registry-fields';
import type { StoredToken } from '../tokens/token-vault';

export const USERS_COLLECTION = 'users';

/**
 * The api_token is stored sealed with its keyed lookup hash (StoredToken), never in clear; the
 * owner record's revision and pending announcement live in the same document (RegistryFields).
 */
export interface UserDocument extends StoredToken, RegistryFields {
  /** unique_id */
  _id: string;
  account_id: string;
  role: UserRole;
  user_name: string;
  email: string;
  /** Lower-cased e-mail, unique across the service. */
  email_key: string;
  password_hash: string;
  timezone: string;
  target_geography: string[];
  created_at: Date;
  updated_at: Date;
}

export type UserPatch = Partial<Pick<UserDocument, 'user_name' | 'password_hash' | 'timezone' | 'target_geography'>>;

export class DuplicateEmailError extends Error {}

/** What the user and redirect-host services need from storage; account-scoped calls take the account id. */
export interface UserStore {
  /** Throws DuplicateEmailError on a taken e-mail. */
  insert(doc: UserDocument): Promise<void>;
  findById(uniqueId: string): Promise<UserDocument | null>;
  findLive(uniqueId: string): Promise<UserDocument | null>;
  setRedirectHosts(uniqueId: string, hosts: string[], now: Date): Promise<boolean>;
  findInAccount(accountId: string, uniqueId: string): Promise<UserDocument | null>;
  listSubUsersPage(accountId: string, after: PagePosition | undefined, limit: number): Promise<UserDocument[]>;
  countSubUsers(accountId: string, atMost: number): Promise<number>;
  listSubUsers(accountId: string): Promise<UserDocument[]>;
  update(accountId: string, uniqueId: string, patch: UserPatch, now: Date): Promise<UserDocument | null>;
  replaceToken(accountId: string, uniqueId: string, token: StoredToken, now: Date): Promise<UserDocument | null>;
  markDeleted(accountId: string, uniqueId: string, now: Date): Promise<boolean>;
}

export class MongoUserStore implements UserStore {
  private readonly users: Collection<UserDocument>;

  constructor(db: Db) {
    this.users = db.collection<UserDocument>(USERS_COLLECTION);
  }

  /** The collection, for the features that own other fields of the same documents (tokens/). */
  get collection(): Collection<UserDocument> {
    return this.users;
  }

  async init(): Promise<void> {
    await ensureIndexes(this.users, [
      // create user: one account per e-mail, case-insensitively
      {
        key: { email_key: 1 },
        options: { unique: true, name: 'email_key_unique' },
        serves: 'insert (duplicate check)',
      },
      // list (and count, for the quota) the sub-users of an account
      {
        key: { account_id: 1, role: 1, created_at: 1 },
        options: { name: 'account_role_created' },
        serves: 'listSubUsers, listSubUsersPage, countSubUsers',
      },
    ]);
  }

  /** Throws DuplicateEmailError on a taken e-mail; retries are the caller's concern for id clashes. */
  async insert(doc: UserDocument): Promise<void> {
    try {
      await this.users.insertOne(doc);
    } catch (err) {
      if (isDuplicateKeyError(err) && (err as { keyPattern?: Record<string, unknown> }).keyPattern?.email_key)
        throw new DuplicateEmailError();
      if (
        isDuplicateKeyError(err) &&
        (await this.users.countDocuments({ email_key: doc.email_key }, { limit: 1 })) > 0
      ) {
        throw new DuplicateEmailError();
      }
      throw err;
    }
  }

  findById(uniqueId: string): Promise<UserDocument | null> {
    return this.users.findOne({ _id: uniqueId });
  }

  /** The caller itself (not deleted): the caller's own settings. */
  findLive(uniqueId: string): Promise<UserDocument | null> {
    return this.users.findOne({ _id: uniqueId, ...LIVE });
  }

  /** Replaces the user's explicit redirect hosts and announces the changed record, in one write. */
  async setRedirectHosts(uniqueId: string, hosts: string[], now: Date): Promise<boolean> {
    return (
      (await this.users.updateOne({ _id: uniqueId, ...LIVE }, announcing({ redirect_hosts: hosts, updated_at: now })))
        .matchedCount === 1
    );
  }

  /** Scoped: only a (not deleted) user of this account. */
  findInAccount(accountId: string, uniqueId: string): Promise<UserDocument | null> {
    return this.users.findOne({ _id: uniqueId, account_id: accountId, ...LIVE });
  }

  /** One page in list order, fetching one more than `limit` to know whether another page follows. */
  listSubUsersPage(accountId: string, after: PagePosition | undefined, limit: number): Promise<UserDocument[]> {
    const filter = {
      account_id: accountId,
      role: 'sub_user',
      ...LIVE,
      ...afterPosition(after),
    } as Filter<UserDocument>;
    return this.users
      .find(filter)
      .sort({ created_at: 1, _id: 1 })
      .limit(limit + 1)
      .toArray();
  }

  /** The account's sub-users, counted up to `atMost` (a quota check need not count further). */
  countSubUsers(accountId: string, atMost: number): Promise<number> {
    return this.users.countDocuments({ account_id: accountId, role: 'sub_user', ...LIVE }, { limit: atMost });
  }

  listSubUsers(accountId: string): Promise<UserDocument[]> {
    return this.users
      .find({ account_id: accountId, role: 'sub_user', ...LIVE })
      .sort({ created_at: 1, _id: 1 })
      .toArray();
  }

  async update(accountId: string, uniqueId: string, patch: UserPatch, now: Date): Promise<UserDocument | null> {
    return this.users.findOneAndUpdate(
      { _id: uniqueId, account_id: accountId, ...LIVE },
      { $set: { ...patch, updated_at: now } },
      { returnDocument: 'after' },
    );
  }

  /** Scoped: replaces the stored token of a user of this account; the old token stops matching in the same write. */
  replaceToken(accountId: string, uniqueId: string, token: StoredToken, now: Date): Promise<UserDocument | null> {
    return this.users.findOneAndUpdate(
      { _id: uniqueId, account_id: accountId, ...LIVE },
      { $set: { ...token, updated_at: now } },
      { returnDocument: 'after' },
    );
  }

  /**
   * Scoped: deletes a user in one write. The token and the e-mail are released at once (the token
   * stops matching, the e-mail may be registered again), and the change is announced as a
   * tombstone; the announcer removes the user's data and finally the document.
   */
  async markDeleted(accountId: string, uniqueId: string, now: Date): Promise<boolean> {
    const released = `deleted:${uniqueId}`;
    const change = announcing({
      deleted_at: now,
      updated_at: now,
      email_key: released,
      api_token_hash: released,
      token_keys: 'deleted',
    });
    const result = await this.users.updateOne(
      { _id: uniqueId, account_id: accountId, ...LIVE },
      { ...change, $unset: { api_token_enc: '' } },
    );
    return result.modifiedCount === 1;
  }
}
