import type { CampaignRecord } from '@cm/contracts';
import { aggregateOf, reportMergeInto, reportOwn, type AggregateName, type GroupStates } from '../../metrics/registry';
import {
  frequencyOf,
  onTargetEventsOf,
  onTargetReachOf,
  type OnTargetAnswer,
  type VisitorSample,
} from '../../sketches/visitor-sample';
import { flightDays } from '../request/campaign-scope';
import type { ReportQuery } from '../request/report-query';
import { formatZoned, wallTime } from '../../storage/zone-clock';
import type { ReportGroup } from '../read/report-group';
import { estimated, pacingOf, type DayRead } from './pacing';
import { visitorCaveats, type SaltPeriod } from './scorecard-caveats';
import type { ScorecardBody } from './scorecard-schema';
import type { OnTargetEstimate, Scorecard } from './scorecard-types';

export interface ScorecardInput {
  campaign: CampaignRecord;
  body: ScorecardBody;
  /** The read's query (its day series) and the merged groups it gave: one per day and name. */
  query: ReportQuery;
  groups: readonly ReportGroup[];
  now: number;
  saltPeriod: SaltPeriod;
}

/** The scorecard from the one read's merged group states. Pure: the groups' states are only read. */
export function shapeScorecard(input: ScorecardInput): Scorecard {
  const { campaign, body, query, groups } = input;
  const zone = campaign.timezone;
  const impressions = groups.filter((g) => g.name === body.impression_name);
  const byDay = new Map(impressions.map((g) => [g.time, g]));
  const days: DayRead[] = (query.series ?? []).map((bucket) => {
    const w = wallTime(zone, bucket.time);
    const day = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
    const group = byDay.get(bucket.time);
    return {
      day,
      dayOfFlight: flightDays({ start_date: campaign.start_date, end_date: day }),
      impressions: countOf(group),
      ...(group?.states.frequency ? { sample: group.states.frequency } : {}),
    };
  });
  const goal = campaign.reach;
  const pacing = pacingOf(days, goal, flightDays(campaign));
  const total = pacing.reached;
  const frequency = frequencyOf(total);
  const at = (bin: 1 | 2 | 3 | 5 | 10) => ({
    value: frequency.atLeast[bin],
    exact: frequency.exact,
    error: frequency.exact ? null : frequency.relativeError.atLeast[bin],
  });
  const shown = sum(impressions);
  const clicks = sum(groups.filter((g) => g.name === body.click_name));
  return {
    campaign: {
      token: campaign.token,
      name: campaign.name ?? null,
      start_date: campaign.start_date,
      end_date: campaign.end_date,
      timezone: zone,
      reach_goal: goal,
      objective: campaign.objective,
      target_countries: campaign.target_countries,
      target_source: campaign.target_source,
      url_count: campaign.urls.length,
    },
    as_of: formatZoned(zone, input.now),
    names: { impression: body.impression_name, click: body.click_name, engagement: body.engagement_name },
    impressions: shown,
    clicks,
    ctr: shown > 0 ? clicks / shown : null,
    reach: estimated(reachOfAnswer(frequency)),
    frequency_avg: frequency.reach > 0 ? frequency.averageFrequency : null,
    frequency: {
      exact: frequency.exact,
      reach_1: at(1),
      reach_2: at(2),
      reach_3: at(3),
      reach_5: at(5),
      reach_10: at(10),
    },
    engagement: engagementOf(
      groups.filter((g) => g.name === body.engagement_name),
      query,
      body.attentive_ms,
    ),
    goal_progress: goal ? frequency.reach / goal : null,
    pacing: { flight_days: flightDays(campaign), days: pacing.days },
    on_target: onTargetOf(campaign, total),
    visitor_basis: 'unrecorded',
    caveats: visitorCaveats(input.saltPeriod),
  };
}

function reachOfAnswer(f: ReturnType<typeof frequencyOf>) {
  return { value: f.reach, exact: f.exact, relativeError: f.relativeError.reach };
}

function onTargetOf(campaign: CampaignRecord, total: VisitorSample): Scorecard['on_target'] {
  if (campaign.target_countries.length === 0) return null;
  const targets = new Set(campaign.target_countries);
  const events = onTargetEventsOf(total, targets);
  return {
    countries: campaign.target_countries,
    source: campaign.target_source,
    impressions: withUndetermined(events),
    impressions_share: total.events > 0 ? Math.min(1, events.value / total.events) : null,
    reach: withUndetermined(onTargetReachOf(total, targets)),
  };
}

function withUndetermined(a: OnTargetAnswer): OnTargetEstimate {
  return { ...estimated(a), undetermined: a.undetermined };
}

/** Engaged time of the engagement events over the flight so far (their states merged over the days). */
function engagementOf(
  groups: readonly ReportGroup[],
  query: ReportQuery,
  attentiveMs: number,
): Scorecard['engagement'] {
  const states = mergeStates(groups);
  const row: Record<string, unknown> = {};
  for (const { aggregate, metric } of query.aggregateMetrics)
    if (aggregate !== 'count' && aggregate !== 'frequency')
      aggregateOf(aggregate).fields?.(states[aggregate] ?? aggregateOf(aggregate).empty(), metric, row);
  const attentive = `engaged_ms_gte_${attentiveMs}`;
  return {
    events: (states.count as number | undefined) ?? 0,
    engaged_ms_avg: row.engaged_ms_avg as number | null,
    // an average is the exact sum over the exact count
    engaged_ms_avg_exact: true,
    engaged_ms_p50: row.engaged_ms_p50 as number | null,
    engaged_ms_p50_exact: row.engaged_ms_p50_exact as boolean,
    attentive_ms: attentiveMs,
    attentive_share: row[attentive] as number | null,
    attentive_share_exact: row[`${attentive}_exact`] as boolean,
  };
}

/** The groups' states merged into states of its own (the groups' are never written). */
function mergeStates(groups: readonly ReportGroup[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const g of groups)
    for (const [name, state] of Object.entries(g.states as GroupStates)) {
      const aggregate = aggregateOf(name as AggregateName);
      out[name] = out[name] === undefined ? reportOwn(aggregate, state) : reportMergeInto(aggregate, out[name], state);
    }
  return out;
}

function countOf(group: ReportGroup | undefined): number {
  return (group?.states.count as number | undefined) ?? 0;
}

function sum(groups: readonly ReportGroup[]): number {
  return groups.reduce((n, g) => n + countOf(g), 0);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
