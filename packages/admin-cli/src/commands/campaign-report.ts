import type { CampaignScorecard, ScorecardEstimate, ScorecardQuery } from '@campaign-events/client';
import type { Command } from '../command';
import { formatFields, formatTable } from '../format/table';
import { formatCount } from '../format/units';
import { PROGRAM } from '../global-options';
import { stringOption } from '../option-values';
import { UsageError } from '../usage-error';
import { CAMPAIGN_CREDENTIALS_NOTE, CAMPAIGN_OPTIONS, campaignAccess, cliError } from './campaign-access';
import { exactness } from './campaign-reach';

/** 0.2345 -> "23.5 %"; null -> "none". */
function percent(share: number | null, digits = 1): string {
  return share === null ? 'none' : `${(share * 100).toFixed(digits)} %`;
}

/** 3071 -> "3,071"; an estimate -> "51,234 (estimate, 1.6 % standard error)". */
function estimate(e: ScorecardEstimate): string {
  return e.exact ? formatCount(e.value) : `${formatCount(e.value)} (${exactness(false, e.error)})`;
}

/** Milliseconds as seconds with one decimal. */
function seconds(ms: number | null, exact = true): string {
  return ms === null ? 'none' : `${exact ? '' : '~'}${(ms / 1000).toFixed(1)} s`;
}

function engagementText(e: CampaignScorecard['engagement'], name: string): string {
  if (e.events === 0) return `no ${name} events`;
  return (
    `avg ${seconds(e.engaged_ms_avg)}, median ${seconds(e.engaged_ms_p50, e.engaged_ms_p50_exact)}, ` +
    `${e.attentive_share_exact ? '' : '~'}${percent(e.attentive_share)} at least ${seconds(e.attentive_ms)} ` +
    `(${formatCount(e.events)} ${name} events)`
  );
}

function onTargetText(o: CampaignScorecard['on_target']): string {
  if (o === null) return 'no target countries';
  const doubt = o.reach.undetermined > 0 ? `, ${formatCount(o.reach.undetermined)} visitors undetermined` : '';
  return (
    `${o.countries.join(', ')} (${o.source}): reach ${estimate(o.reach)}, impressions ` +
    `${estimate(o.impressions)} (${percent(o.impressions_share)})${doubt}`
  );
}

export function formatScorecard(card: CampaignScorecard): string {
  const c = card.campaign;
  const days = card.pacing.days;
  const title = `Campaign ${c.token}${c.name ? ` "${c.name}"` : ''}${c.objective ? ` (${c.objective})` : ''}`;
  const fields = formatFields(
    [
      [
        'flight',
        `${c.start_date} .. ${c.end_date} (${c.timezone}): day ${days.length} of ${card.pacing.flight_days}, as of ${card.as_of}`,
      ],
      ['content', `${formatCount(c.url_count)} URLs`],
      ['impressions', `${formatCount(card.impressions)} ${card.names.impression}`],
      ['clicks', `${formatCount(card.clicks)} ${card.names.click} (CTR ${percent(card.ctr, 2)})`],
      ['reach', `${estimate(card.reach)} distinct visitors`],
      [
        'goal',
        c.reach_goal === null ? 'none' : `${formatCount(c.reach_goal)} (${percent(card.goal_progress)} reached)`,
      ],
      [
        'frequency',
        card.frequency_avg === null
          ? 'none'
          : `${card.frequency_avg.toFixed(2)} per visitor; reached 2+ ${estimate(card.frequency.reach_2)}, ` +
            `3+ ${estimate(card.frequency.reach_3)}, 5+ ${estimate(card.frequency.reach_5)}, 10+ ${estimate(card.frequency.reach_10)}`,
      ],
      ['engaged time', engagementText(card.engagement, card.names.engagement)],
      ['on target', onTargetText(card.on_target)],
    ],
    '  ',
  );
  const pacing =
    days.length === 0
      ? 'Pacing: the flight has not started'
      : formatTable(
          ['day', 'impressions', 'reach (to date)', 'goal to date', 'pace'],
          days.map((d) => [
            d.day,
            formatCount(d.impressions),
            estimate(d.reach),
            d.goal_to_date === null ? '-' : formatCount(Math.round(d.goal_to_date)),
            d.pace?.replace('_', ' ') ?? '-',
          ]),
        );
  const caveats = card.caveats.map((caveat) => `- ${caveat.message}`);
  return [title, fields, '', pacing, ...(caveats.length > 0 ? ['', 'Caveats', ...caveats] : [])].join('\n');
}

export const campaignReportCommand: Command = {
  group: 'campaign',
  verb: 'report',
  summary: "A campaign's scorecard: delivery, reach and frequency, engagement, pacing, on-target",
  description: [
    "One Events API call (the campaign scorecard) over the campaign's content URLs and its flight so",
    "far, days in the owner's time zone: impressions, clicks and CTR, reach and frequency (exact up to",
    '4,096 visitors, then estimates with their standard error), engaged time, progress to the reach',
    'goal, a pacing row per flight day against the straight line to the goal, on-target delivery for',
    "the target countries, and the caveats of what reach counts. --json prints the Events API's answer.",
    CAMPAIGN_CREDENTIALS_NOTE,
  ].join('\n'),
  options: {
    'impression-name': { type: 'string', value: 'NAME', description: 'the exposure event (default impression)' },
    'click-name': { type: 'string', value: 'NAME', description: 'the click event (default click)' },
    'engagement-name': {
      type: 'string',
      value: 'NAME',
      description: 'the event carrying engaged_ms (default engagement)',
    },
    'attentive-ms': {
      type: 'string',
      value: 'MS',
      description: 'engaged time from which a page view is attentive (default 10000)',
    },
    ...CAMPAIGN_OPTIONS,
  },
  positionals: [{ name: 'CAMPAIGN_TOKEN', description: "the campaign's token (from the management API)" }],
  examples: [
    `MANAGEMENT_API_TOKEN=... EVENTS_API_KEY=ek_... ${PROGRAM} campaign report 3f2a9c1b7d`,
    `EVENTS_API_KEY=ek_... ${PROGRAM} campaign report 3f2a9c1b7d --owner 1718000000000123 --attentive-ms 15000`,
    `${PROGRAM} campaign report 3f2a9c1b7d --owner 1718000000000123 --json | jq '.pacing.days[-1]'`,
  ],
  service: 'both',
  operatorToken: false,
  async run(ctx) {
    const attentive = stringOption(ctx.values, 'attentive-ms');
    if (attentive !== undefined && !/^\d{1,7}$/.test(attentive))
      throw new UsageError('--attentive-ms must be a number of milliseconds');
    const { events, management, ownerId } = await campaignAccess(ctx);
    const named = (option: string) => stringOption(ctx.values, option);
    const query: ScorecardQuery = {
      owner_id: '',
      campaign: ctx.positionals[0]!,
      ...(named('impression-name') === undefined ? {} : { impression_name: named('impression-name') }),
      ...(named('click-name') === undefined ? {} : { click_name: named('click-name') }),
      ...(named('engagement-name') === undefined ? {} : { engagement_name: named('engagement-name') }),
      ...(attentive === undefined ? {} : { attentive_ms: Number(attentive) }),
    };
    const card = await (async () => {
      query.owner_id = ownerId ?? (await management!.getOwnUser()).unique_id;
      return events.campaignScorecard(query);
    })().catch((err: unknown) => {
      throw cliError(err);
    });
    return { json: card, text: formatScorecard(card) };
  },
};
