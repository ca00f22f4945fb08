import type { PagePosition } from '../pagination/page-cursors';
import type { StoredToken } from '../tokens/token-vault';
import { DuplicateEmailError, type UserDocument, type UserPatch, type UserStore } from './user-store';

function inListOrder(a: UserDocument, b: UserDocument): number {
  return a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

function isAfter(doc: UserDocument, after: PagePosition | undefined): boolean {
  if (!after) return true;
  const t = doc.created_at.getTime();
  return t > after.created_at.getTime() || (t === after.created_at.getTime() && doc._id > after.id);
}

/** The user store in a Map, for unit tests of the services: same scoping, e-mail uniqueness and announcement fields as the MongoDB store. */
export class InMemoryUserStore implements UserStore {
  readonly docs = new Map<string, UserDocument>();

  async insert(doc: UserDocument): Promise<void> {
    if ([...this.docs.values()].some((d) => d.email_key === doc.email_key)) throw new DuplicateEmailError();
    if (this.docs.has(doc._id)) throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    this.docs.set(doc._id, structuredClone(doc));
  }

  async findById(uniqueId: string): Promise<UserDocument | null> {
    const doc = this.docs.get(uniqueId);
    return doc ? structuredClone(doc) : null;
  }

  async findLive(uniqueId: string): Promise<UserDocument | null> {
    const doc = this.live(uniqueId);
    return doc ? structuredClone(doc) : null;
  }

  async setRedirectHosts(uniqueId: string, hosts: string[], now: Date): Promise<boolean> {
    const doc = this.live(uniqueId);
    if (!doc) return false;
    this.announce(doc, { redirect_hosts: [...hosts], updated_at: now });
    return true;
  }

  async findInAccount(accountId: string, uniqueId: string): Promise<UserDocument | null> {
    const doc = this.inAccount(accountId, uniqueId);
    return doc ? structuredClone(doc) : null;
  }

  async listSubUsersPage(accountId: string, after: PagePosition | undefined, limit: number): Promise<UserDocument[]> {
    return (await this.listSubUsers(accountId)).filter((d) => isAfter(d, after)).slice(0, limit + 1);
  }

  async countSubUsers(accountId: string, atMost: number): Promise<number> {
    return Math.min((await this.listSubUsers(accountId)).length, atMost);
  }

  async listSubUsers(accountId: string): Promise<UserDocument[]> {
    return [...this.docs.values()]
      .filter((d) => d.account_id === accountId && d.role === 'sub_user' && !d.deleted_at)
      .sort(inListOrder)
      .map((d) => structuredClone(d));
  }

  async update(accountId: string, uniqueId: string, patch: UserPatch, now: Date): Promise<UserDocument | null> {
    const doc = this.inAccount(accountId, uniqueId);
    if (!doc) return null;
    Object.assign(doc, structuredClone(patch), { updated_at: now });
    return structuredClone(doc);
  }

  async replaceToken(accountId: string, uniqueId: string, token: StoredToken, now: Date): Promise<UserDocument | null> {
    const doc = this.inAccount(accountId, uniqueId);
    if (!doc) return null;
    Object.assign(doc, token, { updated_at: now });
    return structuredClone(doc);
  }

  async markDeleted(accountId: string, uniqueId: string, now: Date): Promise<boolean> {
    const doc = this.inAccount(accountId, uniqueId);
    if (!doc) return false;
    const released = `deleted:${uniqueId}`;
    this.announce(doc, {
      deleted_at: now,
      updated_at: now,
      email_key: released,
      api_token_hash: released,
      token_keys: 'deleted',
    });
    delete (doc as Partial<UserDocument>).api_token_enc;
    return true;
  }

  private announce(doc: UserDocument, change: Partial<UserDocument>): void {
    Object.assign(doc, change, { registry_pending: true, revision: doc.revision + 1 });
  }

  private live(uniqueId: string): UserDocument | undefined {
    const doc = this.docs.get(uniqueId);
    return doc && !doc.deleted_at ? doc : undefined;
  }

  private inAccount(accountId: string, uniqueId: string): UserDocument | undefined {
    const doc = this.live(uniqueId);
    return doc?.account_id === accountId ? doc : undefined;
  }
}
