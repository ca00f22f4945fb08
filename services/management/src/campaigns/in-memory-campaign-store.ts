import type { PagePosition } from '../pagination/page-cursors';
import type { CampaignFields } from './campaign-schemas';
import type { CampaignDocument, CampaignStore, CampaignSummary } from './campaign-store';

function summaryOf({ content: _content, ...summary }: CampaignDocument): CampaignSummary {
  return structuredClone(summary);
}

function inListOrder(a: CampaignDocument, b: CampaignDocument): number {
  return a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

function isAfter(doc: CampaignDocument, after: PagePosition | undefined): boolean {
  if (!after) return true;
  const t = doc.created_at.getTime();
  return t > after.created_at.getTime() || (t === after.created_at.getTime() && doc._id > after.id);
}

/** The campaign store in a Map, for unit tests of the services: same scoping, version and deletion rules as the MongoDB store. */
export class InMemoryCampaignStore implements CampaignStore {
  readonly docs = new Map<string, CampaignDocument>();

  async insert(doc: CampaignDocument): Promise<void> {
    if (this.docs.has(doc._id)) throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    this.docs.set(doc._id, structuredClone(doc));
  }

  async list(ownerId: string): Promise<CampaignSummary[]> {
    return this.owned(ownerId).map(summaryOf);
  }

  async listPage(ownerId: string, after: PagePosition | undefined, limit: number): Promise<CampaignSummary[]> {
    return this.owned(ownerId)
      .filter((d) => isAfter(d, after))
      .slice(0, limit + 1)
      .map(summaryOf);
  }

  async count(ownerId: string, atMost: number): Promise<number> {
    return Math.min(this.owned(ownerId).length, atMost);
  }

  async findSummary(ownerId: string, token: string): Promise<CampaignSummary | null> {
    const doc = this.find(ownerId, token);
    return doc ? summaryOf(doc) : null;
  }

  async findWithContent(ownerId: string, token: string): Promise<CampaignDocument | null> {
    const doc = this.find(ownerId, token);
    return doc ? structuredClone(doc) : null;
  }

  async update(
    ownerId: string,
    token: string,
    version: number,
    patch: Partial<CampaignFields>,
    now: Date,
  ): Promise<CampaignSummary | null> {
    const doc = this.find(ownerId, token);
    if (!doc || doc.version !== version) return null;
    Object.assign(doc, structuredClone(patch), {
      last_modified: now,
      version: doc.version + 1,
      revision: doc.revision + 1,
      registry_pending: true,
    });
    return summaryOf(doc);
  }

  async delete(ownerId: string, token: string, now: Date): Promise<boolean> {
    const doc = this.find(ownerId, token);
    if (!doc) return false;
    Object.assign(doc, { deleted_at: now, last_modified: now, revision: doc.revision + 1, registry_pending: true });
    return true;
  }

  /** A campaign of this owner that is not deleted. */
  find(ownerId: string, token: string): CampaignDocument | undefined {
    const doc = this.docs.get(token);
    return doc?.owner_id === ownerId && !doc.deleted_at ? doc : undefined;
  }

  private owned(ownerId: string): CampaignDocument[] {
    return [...this.docs.values()].filter((d) => d.owner_id === ownerId && !d.deleted_at).sort(inListOrder);
  }
}
