import type { RequestOptions } from './client-options';
import { CampaignEventsError } from './errors';
import type { EventsClient } from './events-client';
import type { ReportRow } from './events-types';
import type { ManagementClient } from './management-client';

/** The most values the Events API takes in one report filter (`url`, `content_id`, `name`). */
export const REPORT_FILTER_MAX_VALUES = 100;

/** The event name the pixel snippet and the docs use for an exposure. */
export const DEFAULT_REACH_EVENT = 'impression';

export interface CampaignReachOptions extends RequestOptions {
  /** The event counted as an exposure; default `impression`. */
  eventName?: string;
}

/** How many distinct visitors a campaign reached, against its `reach` goal, and what was asked. */
export interface CampaignReach {
  /** Distinct visitors with at least one such event on a content URL within the campaign's dates. */
  reach: number;
  /** False when `reach` is a HyperLogLog estimate (about 0.81 % standard error). */
  exact: boolean;
  /** The campaign's `reach`; null when it has none. */
  goal: number | null;
  /** reach / goal (1 = goal met; may exceed 1); null when the goal is unset or 0. */
  progress: number | null;
  /** The events behind it (every hit, repeats included). */
  events: number;
  owner_id: string;
  /** Both days included, in `timezone`. */
  start_date: string;
  end_date: string;
  /** The campaign owner's time zone, in which the dates were read. */
  timezone: string;
  url_count: number;
  event_name: string;
}

/**
 * The campaign has more content URLs than one report filter takes. Uniques of separate reports
 * cannot be added (a visitor of two URLs would count twice), so the client refuses rather than
 * answer a wrong number.
 */
export class TooManyUrlsError extends CampaignEventsError {
  constructor(
    readonly urlCount: number,
    readonly limit: number,
  ) {
    super(
      `the campaign has ${urlCount} content URLs; its reach can be counted for at most ${limit} ` +
        '(distinct visitors of separate reports do not add up)',
    );
  }
}

/**
 * Reads the campaign and its owner (the caller) from the management API, then asks the Events API
 * for the distinct visitors of `eventName` events on the campaign's content URLs, from start_date
 * to end_date inclusive in the owner's time zone. Only the two public APIs: the management token
 * must belong to the campaign's owner and the events key must be scoped to that owner.
 */
export async function campaignReach(
  management: Pick<ManagementClient, 'getCampaign' | 'getOwnUser'>,
  events: Pick<EventsClient, 'report'>,
  campaignToken: string,
  opts: CampaignReachOptions = {},
): Promise<CampaignReach> {
  const { eventName = DEFAULT_REACH_EVENT, ...request } = opts;
  if (typeof eventName !== 'string' || eventName === '') throw new TypeError('eventName must be a non-empty string');
  const [campaign, owner] = await Promise.all([
    management.getCampaign(campaignToken, request),
    management.getOwnUser(request),
  ]);
  const urls = [...new Set(campaign.content.map((item) => item.url))];
  if (urls.length > REPORT_FILTER_MAX_VALUES) throw new TooManyUrlsError(urls.length, REPORT_FILTER_MAX_VALUES);
  const counted =
    urls.length === 0
      ? { reach: 0, exact: true, events: 0 }
      : fromRows(
          await events.report(
            {
              owner_id: owner.unique_id,
              name: eventName,
              url: urls,
              created__gte: campaign.start_date,
              created__lte: campaign.end_date,
              timezone: owner.timezone,
              metrics: ['count', 'uniques'],
            },
            request,
          ),
        );
  const goal = campaign.reach ?? null;
  return {
    ...counted,
    goal,
    progress: goal ? counted.reach / goal : null,
    owner_id: owner.unique_id,
    start_date: campaign.start_date,
    end_date: campaign.end_date,
    timezone: owner.timezone,
    url_count: urls.length,
    event_name: eventName,
  };
}

/** Ungrouped with one name: no row when nothing happened, else exactly one. */
function fromRows(rows: ReportRow[]): { reach: number; exact: boolean; events: number } {
  if (rows.length === 0) return { reach: 0, exact: true, events: 0 };
  const row = rows[0]!;
  // a report without a country filter is never withheld by the country floor: every number is there
  if (
    rows.length > 1 ||
    typeof row.value !== 'number' ||
    typeof row.uniques !== 'number' ||
    typeof row.uniques_exact !== 'boolean'
  )
    throw new CampaignEventsError('the Events API answered no single row with uniques (is it older than this client?)');
  return { reach: row.uniques, exact: row.uniques_exact, events: row.value };
}
