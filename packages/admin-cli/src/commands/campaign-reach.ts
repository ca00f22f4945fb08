import { DEFAULT_REACH_EVENT, campaignReach, type CampaignReach } from '@campaign-events/client';
import type { Command } from '../command';
import { formatFields } from '../format/table';
import { formatCount } from '../format/units';
import { PROGRAM } from '../global-options';
import { stringOption } from '../option-values';
import { CAMPAIGN_CREDENTIALS_NOTE, CAMPAIGN_OPTIONS, campaignAccess, cliError } from './campaign-access';

export type CampaignReachView = CampaignReach & { campaign_token: string };

/** Progress as a percentage with one decimal, or why there is none. */
function progressText(r: CampaignReach): string {
  if (r.progress === null) return r.goal === 0 ? 'none (the goal is 0)' : 'none (the campaign has no reach goal)';
  return `${(r.progress * 100).toFixed(1)} %`;
}

/** "exact", or the estimate's relative standard error. */
export function exactness(exact: boolean, error: number | null): string {
  return exact ? 'exact' : `estimate, ${((error ?? 0) * 100).toFixed(1)} % standard error`;
}

export function formatReach(r: CampaignReachView): string {
  return [
    `Campaign ${r.campaign_token}`,
    formatFields(
      [
        ['reach', `${formatCount(r.reach)} distinct visitors (${exactness(r.exact, r.error)})`],
        ['goal', r.goal === null ? 'none' : formatCount(r.goal)],
        ['progress', progressText(r)],
        ['events', `${formatCount(r.events)} ${r.event_name} events on ${formatCount(r.url_count)} content URLs`],
        ['dates', `${r.start_date} .. ${r.end_date} (${r.timezone})`],
      ],
      '  ',
    ),
  ].join('\n');
}

export const campaignReachCommand: Command = {
  group: 'campaign',
  verb: 'reach',
  summary: 'Distinct visitors a campaign reached, against its reach goal',
  description: [
    "The distinct visitors of the event on the campaign's content URLs (any number of them) from",
    "its start to its end date, both days included, in the owner's time zone, against the campaign's",
    'reach goal: one Events API call (the campaign scorecard), which knows the campaign from the',
    'registry management publishes.',
    CAMPAIGN_CREDENTIALS_NOTE,
  ].join('\n'),
  options: {
    event: {
      type: 'string',
      value: 'NAME',
      description: `the event counted as an exposure (default ${DEFAULT_REACH_EVENT})`,
    },
    ...CAMPAIGN_OPTIONS,
  },
  positionals: [{ name: 'CAMPAIGN_TOKEN', description: "the campaign's token (from the management API)" }],
  examples: [
    `MANAGEMENT_API_TOKEN=... EVENTS_API_KEY=ek_... ${PROGRAM} campaign reach 3f2a9c1b7d`,
    `EVENTS_API_KEY=ek_... ${PROGRAM} campaign reach 3f2a9c1b7d --owner 1718000000000123 --event view`,
    `${PROGRAM} campaign reach 3f2a9c1b7d --api-token-file ~/.owner-token --api-key-file ~/.events-key --json | jq .progress`,
  ],
  service: 'both',
  operatorToken: false,
  async run(ctx) {
    const campaignToken = ctx.positionals[0]!;
    const { events, management, ownerId } = await campaignAccess(ctx);
    const eventName = stringOption(ctx.values, 'event');
    const reach = await campaignReach(management, events, campaignToken, {
      ...(eventName === undefined ? {} : { eventName }),
      ...(ownerId === undefined ? {} : { ownerId }),
    }).catch((err: unknown) => {
      throw cliError(err);
    });
    const view: CampaignReachView = { campaign_token: campaignToken, ...reach };
    return { json: view, text: formatReach(view) };
  },
};
