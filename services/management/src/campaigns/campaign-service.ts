import { ConflictError, NotFoundError, ValidationError, isDuplicateKeyError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { HostsChanged } from '../content/content-service';
import type { PageCursors } from '../pagination/page-cursors';
import type { Page } from '../pagination/page-query';
import { quotaExceeded } from '../quotas/quota-exceeded';
import { randomToken } from '../users/secrets';
import { todayIn } from './calendar-date';
import type { CampaignFields, CreateCampaignInput, EditCampaignInput } from './campaign-schemas';
import type { CampaignDocument, CampaignStore } from './campaign-store';
import {
  toCampaignEditView,
  toCampaignListView,
  toCampaignReadView,
  type CampaignEditView,
  type CampaignListView,
  type CampaignReadView,
} from './campaign-view';

/** The owner's IANA time zone (from the user's settings), which decides what "today" is. */
export type TimezoneOf = (ownerId: string) => Promise<string>;

/** A write changed the campaign's record and set its pending announcement: publish it (bounded; never throws). */
export type CampaignChanged = (campaignToken: string) => Promise<void>;

export interface CampaignServiceDeps {
  store: CampaignStore;
  timezoneOf: TimezoneOf;
  /** A deleted campaign takes its content URLs (redirect hosts) with it. */
  hostsChanged: HostsChanged;
  campaignChanged: CampaignChanged;
  /** QUOTA_CAMPAIGNS_PER_USER. */
  maxCampaigns: number;
  cursors: PageCursors;
  now?: () => Date;
}

/** Names this list in its cursors (a users cursor is refused here). */
const CURSOR_LIST = 'campaigns';

/** Edits retried this often when another edit slipped in between read and write. */
const EDIT_ATTEMPTS = 3;

function requireDatesInOrder(fields: Pick<CampaignFields, 'start_date' | 'end_date'>): void {
  if (fields.start_date > fields.end_date) {
    throw new ValidationError('invalid campaign', [
      {
        field: 'start_date',
        message: `start_date (${fields.start_date}) must not be after end_date (${fields.end_date})`,
      },
    ]);
  }
}

/** Campaigns. Every user owns its own campaigns: each call is scoped by the caller's unique_id. */
export class CampaignService {
  private readonly now: () => Date;

  constructor(private readonly deps: CampaignServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async list(caller: AuthenticatedUser): Promise<CampaignListView[]> {
    return (await this.deps.store.list(caller.unique_id)).map(toCampaignListView);
  }

  /** The same list, `limit` at a time (opt-in pagination). */
  async listPage(
    caller: AuthenticatedUser,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<CampaignListView>> {
    return this.deps.cursors.page(
      CURSOR_LIST,
      limit,
      cursor,
      (after, n) => this.deps.store.listPage(caller.unique_id, after, n),
      toCampaignListView,
    );
  }

  /** Within the quota: concurrent creates may overshoot it by at most their number (counted, not reserved). */
  async create(caller: AuthenticatedUser, input: CreateCampaignInput): Promise<CampaignListView> {
    requireDatesInOrder(input);
    if ((await this.deps.store.count(caller.unique_id, this.deps.maxCampaigns)) >= this.deps.maxCampaigns)
      throw quotaExceeded('campaigns per user', this.deps.maxCampaigns, 'campaign');
    const now = this.now();
    for (let attempt = 0; ; attempt++) {
      const doc: CampaignDocument = {
        _id: randomToken(),
        owner_id: caller.unique_id,
        name: input.name,
        start_date: input.start_date,
        end_date: input.end_date,
        category: input.category,
        brand: input.brand ?? null,
        reach: input.reach ?? null,
        target_geography: input.target_geography ?? [],
        objective: input.objective ?? null,
        created_at: now,
        last_modified: now,
        version: 0,
        content: [],
        // the first record, announced by the same insert
        revision: 1,
        registry_pending: true,
      };
      try {
        await this.deps.store.insert(doc);
        await this.deps.campaignChanged(doc._id);
        return toCampaignListView(doc);
      } catch (err) {
        if (isDuplicateKeyError(err) && attempt < 2) continue; // a 256-bit token clash: draw again
        throw err;
      }
    }
  }

  /**
   * Partial edit; the merged campaign must still be valid (start_date <= end_date). An empty edit
   * (no body, or `{}`) is a no-op that answers the current data and leaves last_modified alone.
   */
  async edit(caller: AuthenticatedUser, token: string, input: EditCampaignInput): Promise<CampaignEditView> {
    for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
      const current = await this.deps.store.findSummary(caller.unique_id, token);
      if (!current) throw new NotFoundError('no such campaign');
      if (Object.keys(input).length === 0) return toCampaignEditView(current);
      requireDatesInOrder({
        start_date: input.start_date ?? current.start_date,
        end_date: input.end_date ?? current.end_date,
      });
      const updated = await this.deps.store.update(caller.unique_id, token, current.version, input, this.now());
      if (!updated) continue;
      await this.deps.campaignChanged(token);
      return toCampaignEditView(updated);
    }
    throw new ConflictError('the campaign is being edited concurrently; retry');
  }

  async read(caller: AuthenticatedUser, token: string): Promise<CampaignReadView> {
    const [doc, timezone] = await Promise.all([
      this.deps.store.findWithContent(caller.unique_id, token),
      this.deps.timezoneOf(caller.unique_id),
    ]);
    if (!doc) throw new NotFoundError('no such campaign');
    return toCampaignReadView(doc, todayIn(timezone, this.now()));
  }

  /** The campaign's tombstone and its owner's record (its content hosts go with it) are announced side by side. */
  async delete(caller: AuthenticatedUser, token: string): Promise<void> {
    if (!(await this.deps.store.delete(caller.unique_id, token, this.now())))
      throw new NotFoundError('no such campaign');
    await Promise.all([this.deps.campaignChanged(token), this.deps.hostsChanged(caller.unique_id)]);
  }
}
