import {
  assembleCampaignRecord,
  decodeCampaignHeader,
  decodeCampaignPart,
  parseCampaignPartKey,
  type CampaignLiveHeader,
  type CampaignRecord,
} from '@cm/contracts';

/** One change of a key, as a watch delivers it. */
export interface KeyChange {
  key: string;
  /** A value written, or the key deleted or purged. */
  operation: 'PUT' | 'DEL' | 'PURGE';
  value: Uint8Array;
}

/**
 * The live campaigns a campaign registry bucket holds, built from its keys in the order a watch
 * delivers them: a header per campaign, and for a large campaign its URL parts under keys of
 * their own. A campaign's record changes only once a header and every part of its revision are
 * in (checked against the header's count and digest); until then the previous complete record
 * stays, so a reader never sees a campaign with half its URLs.
 */
export class CampaignRegistryState {
  private readonly campaigns = new Map<string, CampaignRecord>();
  /** Headers waiting for parts, by token. */
  private readonly waiting = new Map<string, CampaignLiveHeader>();
  /** Parts not yet used, by token, revision and index. */
  private readonly parts = new Map<string, Map<number, Map<number, readonly string[]>>>();
  /** Campaigns whose header the current replay delivered (the rest are swept once it is complete). */
  private seen = new Set<string>();

  constructor(private readonly onInvalid: (key: string) => void = () => undefined) {}

  get size(): number {
    return this.campaigns.size;
  }

  /** The live campaign with this token, if it belongs to this owner. */
  campaign(ownerId: string, token: string): CampaignRecord | undefined {
    const record = this.campaigns.get(token);
    return record?.owner_id === ownerId ? record : undefined;
  }

  /** A watch starts over: its replay delivers every header and part again; the complete records stay meanwhile. */
  restart(): void {
    this.waiting.clear();
    this.parts.clear();
    this.seen = new Set();
  }

  /** The replay is complete: a campaign it did not deliver is no longer in the bucket. */
  replayed(): void {
    for (const token of this.campaigns.keys()) if (!this.seen.has(token)) this.forget(token);
  }

  apply(change: KeyChange): void {
    const part = parseCampaignPartKey(change.key);
    if (part) this.applyPart(change, part);
    else this.applyHeader(change);
  }

  private applyHeader(change: KeyChange): void {
    const token = change.key;
    if (change.operation !== 'PUT') return this.forget(token);
    this.seen.add(token);
    const header = decodeCampaignHeader(change.value);
    // a value that is no record leaves the record held as it is
    if (!header || header.token !== token) return this.onInvalid(token);
    // a tombstone: the campaign (or its owner) was deleted
    if (header.deleted) return this.forget(token);
    if ((this.campaigns.get(token)?.revision ?? -1) >= header.revision) return;
    this.waiting.set(token, header);
    this.assemble(token);
  }

  private applyPart(change: KeyChange, key: { token: string; revision: number; index: number }): void {
    const revisions = this.parts.get(key.token);
    if (change.operation !== 'PUT') {
      revisions?.get(key.revision)?.delete(key.index);
      return;
    }
    // a part of a record already complete, or older than it: nothing to wait for
    if ((this.campaigns.get(key.token)?.revision ?? -1) >= key.revision) return;
    const part = decodeCampaignPart(change.value, key);
    if (!part) return this.onInvalid(change.key);
    const byRevision = revisions ?? new Map<number, Map<number, readonly string[]>>();
    this.parts.set(key.token, byRevision);
    const byIndex = byRevision.get(key.revision) ?? new Map<number, readonly string[]>();
    byRevision.set(key.revision, byIndex.set(key.index, part.urls));
    this.assemble(key.token);
  }

  private assemble(token: string): void {
    const header = this.waiting.get(token);
    if (!header) return;
    const byIndex = this.parts.get(token)?.get(header.revision);
    const lists = Array.from({ length: header.url_parts ?? 0 }, (_, i) => byIndex?.get(i));
    if (header.urls === undefined && lists.some((urls) => urls === undefined)) return;
    const record = assembleCampaignRecord(header, lists);
    this.waiting.delete(token);
    if (!record || record.deleted) return this.onInvalid(token);
    this.campaigns.set(token, record);
    const revisions = this.parts.get(token);
    for (const revision of revisions?.keys() ?? []) if (revision <= record.revision) revisions!.delete(revision);
    if (revisions?.size === 0) this.parts.delete(token);
  }

  private forget(token: string): void {
    this.campaigns.delete(token);
    this.waiting.delete(token);
    this.parts.delete(token);
  }
}
