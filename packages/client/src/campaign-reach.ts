import type { RequestOptions } from './client-options';
import type { EventsClient } from './events-client';
import type { CampaignScorecard } from './events-types';
import type { ManagementClient } from './management-client';

/**
 * The most values the Events API takes in one report list filter (`url`, `content_id`, `name`);
 * a report's `campaign` filter has no such limit.
 * @public for callers building their own reports
 */
export const REPORT_FILTER_MAX_VALUES = 100;

/** The event name the pixel snippet and the docs use for an exposure. */
export const DEFAULT_REACH_EVENT = 'impression';

/** The scorecard's default names: the counted event takes one, the others the rest, all distinct. */
const SCORECARD_NAMES = ['impression', 'click', 'engagement'] as const;

export interface CampaignReachOptions extends RequestOptions {
  /** The event counted as an exposure; default `impression`. */
  eventName?: string;
  /** The campaign owner's unique_id, when the caller has it: then the management API is not asked at all. */
  ownerId?: string;
}

/** How many distinct visitors a campaign reached, against its `reach` goal, and what was asked. */
export interface CampaignReach {
  /** Distinct visitors with at least one such event on a content URL within the campaign's dates. */
  reach: number;
  /** False when `reach` is an estimate (past 4,096 visitors: a sample of them, see `error`). */
  exact: boolean;
  /** The estimate's relative standard error; null when exact. */
  error: number | null;
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
 * The campaign's reach from one Events API call, its scorecard (the campaign filter: its content
 * URLs over its flight in the owner's zone, any number of URLs): the Events API knows the
 * campaign's URLs, dates, zone and goal from the registry management publishes. The management API
 * is asked only for the owner's unique_id (`getOwnUser()`), and not at all when `opts.ownerId` is
 * given (`management` may then be undefined). The events key must be scoped to the owner.
 */
export async function campaignReach(
  management: Pick<ManagementClient, 'getOwnUser'> | undefined,
  events: Pick<EventsClient, 'campaignScorecard'>,
  campaignToken: string,
  opts: CampaignReachOptions = {},
): Promise<CampaignReach> {
  const { eventName = DEFAULT_REACH_EVENT, ownerId, ...request } = opts;
  if (typeof eventName !== 'string' || eventName === '') throw new TypeError('eventName must be a non-empty string');
  if (ownerId === undefined && !management)
    throw new TypeError('campaignReach needs a ManagementClient or opts.ownerId');
  const owner = ownerId ?? (await management!.getOwnUser(request)).unique_id;
  const card = await events.campaignScorecard(
    { owner_id: owner, campaign: campaignToken, ...names(eventName) },
    request,
  );
  return reachOf(card, owner);
}

/** The counted event as the impression name; the click and engagement names the defaults it leaves free. */
function names(eventName: string): { impression_name: string; click_name: string; engagement_name: string } {
  const [click_name, engagement_name] = SCORECARD_NAMES.filter((n) => n !== eventName).slice(-2) as [string, string];
  return { impression_name: eventName, click_name, engagement_name };
}

function reachOf(card: CampaignScorecard, owner: string): CampaignReach {
  const { campaign } = card;
  return {
    reach: card.reach.value,
    exact: card.reach.exact,
    error: card.reach.error,
    goal: campaign.reach_goal,
    progress: card.goal_progress,
    events: card.impressions,
    owner_id: owner,
    start_date: campaign.start_date,
    end_date: campaign.end_date,
    timezone: campaign.timezone,
    url_count: campaign.url_count,
    event_name: card.names.impression,
  };
}
