import {
  ApiError as ClientApiError,
  CampaignEventsError,
  DEFAULT_REACH_EVENT,
  EventsClient,
  ManagementClient,
  NetworkError as ClientNetworkError,
  TooManyUrlsError,
  campaignReach,
  type CampaignReach,
} from '@campaign-events/client';
import { ApiError, CommandFailure, NetworkError } from '../api-error';
import type { Command } from '../command';
import { formatFields } from '../format/table';
import { formatCount } from '../format/units';
import { PROGRAM } from '../global-options';
import { stringOption } from '../option-values';
import { readUserSecret } from '../user-secret';

export type CampaignReachView = CampaignReach & { campaign_token: string };

const UNAUTHORIZED_HINT =
  "hint: the management api_token (MANAGEMENT_API_TOKEN) must be the campaign owner's, the Events API key (EVENTS_API_KEY) one issued for that owner";

/** Progress as a percentage with one decimal, or why there is none. */
function progressText(r: CampaignReach): string {
  if (r.progress === null) return r.goal === 0 ? 'none (the goal is 0)' : 'none (the campaign has no reach goal)';
  return `${(r.progress * 100).toFixed(1)} %`;
}

export function formatReach(r: CampaignReachView): string {
  return [
    `Campaign ${r.campaign_token}`,
    formatFields(
      [
        [
          'reach',
          `${formatCount(r.reach)} distinct visitors (${r.exact ? 'exact' : 'estimate, about 0.81 % standard error'})`,
        ],
        ['goal', r.goal === null ? 'none' : formatCount(r.goal)],
        ['progress', progressText(r)],
        ['events', `${formatCount(r.events)} ${r.event_name} events on ${formatCount(r.url_count)} content URLs`],
        ['dates', `${r.start_date} .. ${r.end_date} (${r.timezone})`],
      ],
      '  ',
    ),
  ].join('\n');
}

/** The client's errors as the CLI reports them (exit 1), without the request's query string. */
function cliError(err: unknown): unknown {
  if (err instanceof ClientApiError) {
    const prefix = `${err.request} -> ${err.status} ${err.code}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    return new ApiError(err.status, err.code, `${err.request}: ${message}`, err.details, UNAUTHORIZED_HINT);
  }
  if (err instanceof ClientNetworkError) return new NetworkError(err.message);
  if (err instanceof TooManyUrlsError) return new CommandFailure('too_many_urls', err.message);
  if (err instanceof CampaignEventsError) return new CommandFailure('unexpected_response', err.message);
  return err;
}

export const campaignReachCommand: Command = {
  group: 'campaign',
  verb: 'reach',
  summary: 'Distinct visitors a campaign reached, against its reach goal',
  description: [
    "Acts as the campaign's owner, not as the operator: reads the campaign (dates, content URLs,",
    "reach goal) and the owner (unique_id, time zone) from the management API with the owner's",
    'api_token, then asks the Events API, with a key issued for that owner, for the distinct',
    'visitors of the event on those URLs from start_date to end_date (both days included, in the',
    "owner's time zone). Campaigns with more than 100 content URLs cannot be counted in one report",
    'and fail (exit 1): visitors of separate reports do not add up. The operator token is not used.',
  ].join('\n'),
  options: {
    event: {
      type: 'string',
      value: 'NAME',
      description: `the event counted as an exposure (default ${DEFAULT_REACH_EVENT})`,
    },
    'api-token-file': {
      type: 'string',
      value: 'PATH',
      description: "read the campaign owner's management api_token from this file (else env MANAGEMENT_API_TOKEN)",
    },
    'api-key-file': {
      type: 'string',
      value: 'PATH',
      description: 'read the Events API key for that owner from this file (else env EVENTS_API_KEY)',
    },
  },
  positionals: [{ name: 'CAMPAIGN_TOKEN', description: "the campaign's token (from the management API)" }],
  examples: [
    `MANAGEMENT_API_TOKEN=... EVENTS_API_KEY=ek_... ${PROGRAM} campaign reach 3f2a9c1b7d`,
    `${PROGRAM} campaign reach 3f2a9c1b7d --api-token-file ~/.owner-token --api-key-file ~/.events-key --event view`,
    `${PROGRAM} campaign reach 3f2a9c1b7d --json | jq .progress`,
  ],
  service: 'both',
  operatorToken: false,
  async run(ctx) {
    const campaignToken = ctx.positionals[0]!;
    const apiToken = await readUserSecret(ctx.values, ctx.io, {
      what: 'management api_token',
      fileOption: 'api-token-file',
      envName: 'MANAGEMENT_API_TOKEN',
    });
    const apiKey = await readUserSecret(ctx.values, ctx.io, {
      what: 'Events API key',
      fileOption: 'api-key-file',
      envName: 'EVENTS_API_KEY',
    });
    // one attempt per call, like every other command: the operator re-runs knowingly
    const common = { fetch: ctx.io.fetch, retry: { maxAttempts: 1 } };
    const management = new ManagementClient({ baseUrl: ctx.urls.management, apiToken, ...common });
    const events = new EventsClient({ baseUrl: ctx.urls.events, apiKey, ...common });
    const eventName = stringOption(ctx.values, 'event');
    const reach = await campaignReach(
      management,
      events,
      campaignToken,
      eventName === undefined ? {} : { eventName },
    ).catch((err: unknown) => {
      throw cliError(err);
    });
    const view: CampaignReachView = { campaign_token: campaignToken, ...reach };
    return { json: view, text: formatReach(view) };
  },
};
