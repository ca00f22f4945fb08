import { ConflictError, ForbiddenError, NotFoundError, isDuplicateKeyError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { PageCursors } from '../pagination/page-cursors';
import type { Page } from '../pagination/page-query';
import { quotaExceeded } from '../quotas/quota-exceeded';
import type { TokenVault } from '../tokens/token-vault';
import { DEFAULT_TIMEZONE } from '../validation/timezones';
import { hashPassword, randomDigits, randomToken } from './secrets';
import type { CreateUserInput, EditUserInput } from './user-schemas';
import { DuplicateEmailError, type UserDocument, type UserPatch, type UserStore } from './user-store';
import { toOwnUserView, toUserView, type OwnUserView, type UserView } from './user-view';

/**
 * Tells the events service which owner_ids exist (via NATS; see registry/), after a write that
 * recorded the change and its pending announcement together. Never throws: what cannot be
 * published now is published by the relay.
 */
export interface UserAnnouncements {
  announce(uniqueId: string): Promise<void>;
}

export interface UserServiceDeps {
  store: UserStore;
  announcer: UserAnnouncements;
  /**
   * The user's time zone or target geography changed (already written): its campaigns' records
   * carry them, so they are announced again. Never throws.
   */
  settingsChanged?(uniqueId: string): Promise<void>;
  vault: Pick<TokenVault, 'seal' | 'open'>;
  /** QUOTA_SUB_USERS_PER_ACCOUNT. */
  maxSubUsers: number;
  cursors: PageCursors;
  /** scrypt, through the composition root's gate on concurrent hashes; the plain function by default. */
  hashPassword?: (password: string) => Promise<string>;
  now?: () => Date;
}

/** Names this list in its cursors (a campaigns cursor is refused here). */
const CURSOR_LIST = 'users';

function requireOwner(caller: AuthenticatedUser): void {
  if (caller.role !== 'owner') throw new ForbiddenError('sub-users cannot manage users');
}

export class UserService {
  private readonly now: () => Date;
  private readonly hashPassword: (password: string) => Promise<string>;

  constructor(private readonly deps: UserServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.hashPassword = deps.hashPassword ?? hashPassword;
  }

  /** Operator bootstrap: a new account owner. */
  createAccount(input: CreateUserInput): Promise<UserView> {
    return this.insertUser(input, undefined);
  }

  /** Within the quota: concurrent creates may overshoot it by at most their number (counted, not reserved). */
  async createSubUser(caller: AuthenticatedUser, input: CreateUserInput): Promise<UserView> {
    requireOwner(caller);
    if ((await this.deps.store.countSubUsers(caller.account_id, this.deps.maxSubUsers)) >= this.deps.maxSubUsers)
      throw quotaExceeded('sub-users per account', this.deps.maxSubUsers, 'user');
    return this.insertUser(input, caller.account_id);
  }

  async listSubUsers(caller: AuthenticatedUser): Promise<UserView[]> {
    requireOwner(caller);
    return (await this.deps.store.listSubUsers(caller.account_id)).map((doc) => this.view(doc));
  }

  /** The same list, `limit` at a time (opt-in pagination). */
  async listSubUsersPage(
    caller: AuthenticatedUser,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<UserView>> {
    requireOwner(caller);
    return this.deps.cursors.page(
      CURSOR_LIST,
      limit,
      cursor,
      (after, n) => this.deps.store.listSubUsersPage(caller.account_id, after, n),
      (doc) => this.view(doc),
    );
  }

  /** The caller itself, owner or sub-user; without its token (the caller has it). */
  async ownUser(caller: AuthenticatedUser): Promise<OwnUserView> {
    const doc = await this.deps.store.findLive(caller.unique_id);
    // deleted between the token lookup and this read
    if (!doc) throw new NotFoundError('no such user');
    return toOwnUserView(doc);
  }

  /** An empty edit (no body, or `{}`) changes nothing and answers the user as it is. */
  async editUser(caller: AuthenticatedUser, uniqueId: string, input: EditUserInput): Promise<UserView> {
    requireOwner(caller);
    if (Object.keys(input).length === 0) return this.view(await this.existingInAccount(caller, uniqueId));
    const patch: UserPatch = {};
    if (input.user_name !== undefined) {
      patch.user_name = input.user_name;
      if (input.user_name === '') patch.user_name = (await this.existingInAccount(caller, uniqueId)).email;
    }
    if (input.password !== undefined) patch.password_hash = await this.hashPassword(input.password);
    if (input.timezone !== undefined) patch.timezone = input.timezone;
    if (input.target_geography !== undefined) patch.target_geography = input.target_geography;
    const updated = await this.deps.store.update(caller.account_id, uniqueId, patch, this.now());
    if (!updated) throw new NotFoundError('no such user');
    if (patch.timezone !== undefined || patch.target_geography !== undefined)
      await this.deps.settingsChanged?.(uniqueId);
    return this.view(updated);
  }

  /**
   * A new api_token for the user; the old one is refused from the same write on. An account owner
   * rotates its own token and its sub-users'; a sub-user only its own.
   */
  async rotateToken(caller: AuthenticatedUser, uniqueId: string): Promise<UserView> {
    if (caller.role !== 'owner' && uniqueId !== caller.unique_id)
      throw new ForbiddenError('sub-users can rotate only their own token');
    const token = randomToken();
    const updated = await this.deps.store.replaceToken(
      caller.account_id,
      uniqueId,
      this.deps.vault.seal(token, uniqueId),
      this.now(),
    );
    if (!updated) throw new NotFoundError('no such user');
    return toUserView(updated, token);
  }

  async deleteUser(caller: AuthenticatedUser, uniqueId: string): Promise<void> {
    requireOwner(caller);
    if (uniqueId === caller.unique_id)
      throw new ForbiddenError('an account owner cannot delete itself; ask the operator');
    if (!(await this.deps.store.markDeleted(caller.account_id, uniqueId, this.now())))
      throw new NotFoundError('no such user');
    // removes the user's campaigns, writes the tombstone, then drops the document
    await this.deps.announcer.announce(uniqueId);
  }

  private async insertUser(input: CreateUserInput, accountId: string | undefined): Promise<UserView> {
    const now = this.now();
    const passwordHash = await this.hashPassword(input.password);
    for (let attempt = 0; ; attempt++) {
      const uniqueId = randomDigits();
      const token = randomToken();
      const doc: UserDocument = {
        _id: uniqueId,
        account_id: accountId ?? uniqueId,
        role: accountId ? 'sub_user' : 'owner',
        user_name: input.user_name ? input.user_name : input.email,
        email: input.email,
        email_key: input.email.toLowerCase(),
        password_hash: passwordHash,
        ...this.deps.vault.seal(token, uniqueId),
        timezone: input.timezone ?? DEFAULT_TIMEZONE,
        target_geography: input.target_geography ?? [],
        created_at: now,
        updated_at: now,
        // the first record, announced by the same insert
        revision: 1,
        registry_pending: true,
        redirect_hosts: [],
      };
      try {
        await this.deps.store.insert(doc);
      } catch (err) {
        if (err instanceof DuplicateEmailError)
          throw new ConflictError('a user with this email already exists', [
            { field: 'email', message: 'is already registered' },
          ]);
        if (isDuplicateKeyError(err) && attempt < 3) continue; // unique_id or token clash: draw again
        throw err;
      }
      await this.deps.announcer.announce(uniqueId);
      return toUserView(doc, token);
    }
  }

  private async existingInAccount(caller: AuthenticatedUser, uniqueId: string): Promise<UserDocument> {
    const current = await this.deps.store.findInAccount(caller.account_id, uniqueId);
    if (!current) throw new NotFoundError('no such user');
    return current;
  }

  private view(doc: UserDocument): UserView {
    return toUserView(doc, this.deps.vault.open(doc.api_token_enc, doc._id));
  }
}
