import type { CampaignRecord } from '@cm/contracts';

/** A count of visitors (or of their events): exact, or a sample's estimate with its relative standard error. */
export interface Estimated {
  value: number;
  exact: boolean;
  /** Relative standard error when estimated (about 95 % of answers lie within twice it); null when exact. */
  error: number | null;
}

/** An estimate that may also leave visitors out it cannot place (see onTargetReachOf). */
export interface OnTargetEstimate extends Estimated {
  /** Visitors (or their events) from more countries than a sample keeps, none of the kept ones a target. */
  undetermined: number;
}

/** One flight day up to today. */
export interface PacingDay {
  /** The day in the campaign's zone, YYYY-MM-DD. */
  day: string;
  impressions: number;
  /** Distinct visitors from the flight's first day through this one. */
  reach: Estimated;
  /** The straight line to the goal: goal * days elapsed / flight days; null without a goal. */
  goal_to_date: number | null;
  /** Reach against that line; null without a goal. */
  pace: 'ahead' | 'on_pace' | 'behind' | null;
}

export interface Caveat {
  code: string;
  message: string;
}

/** The campaign scorecard (docs/api/events.md, "Campaign scorecard"). */
export interface Scorecard {
  campaign: {
    token: string;
    name: string | null;
    start_date: string;
    end_date: string;
    timezone: string;
    reach_goal: number | null;
    objective: string | null;
    target_countries: readonly string[];
    target_source: CampaignRecord['target_source'];
    url_count: number;
  };
  /** When the scorecard was read, in the campaign's zone: the flight is counted up to here. */
  as_of: string;
  names: { impression: string; click: string; engagement: string };
  impressions: number;
  clicks: number;
  /** clicks / impressions; null without impressions. */
  ctr: number | null;
  /** Distinct visitors with an impression over the flight so far. */
  reach: Estimated;
  /** Impressions per visitor reached (of the impressions that carry a visitor); null without reach. */
  frequency_avg: number | null;
  /** Visitors reached at least 1, 2, 3, 5 and 10 times. */
  frequency: {
    exact: boolean;
    reach_1: Estimated;
    reach_2: Estimated;
    reach_3: Estimated;
    reach_5: Estimated;
    reach_10: Estimated;
  };
  engagement: {
    events: number;
    engaged_ms_avg: number | null;
    engaged_ms_avg_exact: boolean;
    engaged_ms_p50: number | null;
    engaged_ms_p50_exact: boolean;
    attentive_ms: number;
    /** The share of engagement events with engaged_ms at or above attentive_ms; null without any. */
    attentive_share: number | null;
    attentive_share_exact: boolean;
  };
  /** reach / the campaign's reach goal; null without a goal (or a goal of 0). */
  goal_progress: number | null;
  pacing: { flight_days: number; days: PacingDay[] };
  /** Null when the campaign (and its owner) has no target countries. */
  on_target: {
    countries: readonly string[];
    source: CampaignRecord['target_source'];
    /** Impressions of on-target visitors (a visitor is on target with one event from a target country). */
    impressions: OnTargetEstimate;
    /** Their share of the impressions that carry a visitor; null without any. */
    impressions_share: number | null;
    reach: OnTargetEstimate;
  } | null;
  /** Events do not record whether their visitor is a publisher vid or a cookieless hash: see caveats. */
  visitor_basis: 'unrecorded';
  caveats: Caveat[];
}
