import type { CampaignRecord } from '@cm/contracts';
import { normaliseReport, type ReportLimits } from '../request/parse-report-request';
import type { ReportQuery } from '../request/report-query';
import type { ScorecardBody } from './scorecard-schema';

/** The metrics the scorecard's one read asks of every name (the engagement figures are read on its events only). */
function scorecardMetrics(attentiveMs: number): string[] {
  return ['count', 'frequency', 'engaged_ms_avg', 'engaged_ms_p50', `engaged_ms_gte_${attentiveMs}`];
}

/**
 * The scorecard's one read, as a report query: the campaign's URLs over its flight up to `now`,
 * its three names, one row per flight day in the campaign's zone. Pure.
 */
export function scorecardQuery(
  body: ScorecardBody,
  campaign: CampaignRecord,
  limits: ReportLimits,
  now: number,
): ReportQuery {
  return normaliseReport(
    {
      owner_id: body.owner_id,
      campaign: body.campaign,
      name: [body.impression_name, body.click_name, body.engagement_name],
      interval: 'day',
      created__lte: { start: new Date(now), end: new Date(now) },
      metrics: scorecardMetrics(body.attentive_ms),
    },
    limits,
    campaign,
  );
}
