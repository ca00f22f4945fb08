import type { CampaignRecord } from '@cm/contracts';
import { ForbiddenError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../../api-keys/api-key-service';
import type { CampaignLookup } from '../../registry/campaign-registry-watcher';
import type { CountSource } from '../read/count-source';
import type { InFlightWork } from '../read/in-flight-work';
import { normaliseReport, type ReportLimits } from '../request/parse-report-request';
import { validateReportBody } from '../request/report-schema';
import { campaignOf } from '../request/campaign-scope';
import { readPlanOf, type ReadPlan } from '../read/read-plan';
import type { ReportGroup } from '../read/report-group';
import { toReportRows } from '../read/report-rows';
import type { ReportRow } from '../read/report-row';

export interface ReportServiceLimits extends ReportLimits {
  /** One overall deadline per report (REPORT_DEADLINE_MS). */
  deadlineMs: number;
  /** Groups (series rows) a report may return or hold (REPORT_MAX_GROUPS). */
  maxGroups: number;
  /** Groups a top-N report (`limit`) may rank (REPORT_MAX_RANKED_GROUPS). */
  maxRankedGroups: number;
  /** Estimated bytes of the groups one report may hold (default MAX_GROUP_BYTES; smaller in tests). */
  maxGroupBytes?: number;
  /** Fewest distinct visitors a country row may show (REPORT_COUNTRY_FLOOR; 0 or absent: off). */
  countryFloor?: number;
}

/** The client going away and the report's database calls: what bounds one read besides the limits. */
export interface ReadContext {
  signal?: AbortSignal;
  /** Collects the report's database calls: one that stops early may leave some running. */
  work?: InFlightWork;
}

/** A process without a campaign registry knows no campaign (tools and tests that read other things). */
const NO_CAMPAIGNS: CampaignLookup = { isReady: () => true, campaign: () => undefined };

/**
 * The report use case: validate, check the key's owner scope, resolve the campaign, count within
 * the budget, shape. The scorecard reads through the same steps (`scope`, `read`).
 */
export class ReportService {
  constructor(
    private readonly source: CountSource,
    readonly limits: ReportServiceLimits,
    private readonly campaigns: CampaignLookup = NO_CAMPAIGNS,
  ) {}

  async report(
    caller: ApiKeyPrincipal,
    body: unknown,
    signal?: AbortSignal,
    work?: InFlightWork,
  ): Promise<ReportRow[]> {
    const input = validateReportBody(body);
    const campaign = this.scope(caller, input.owner_id, input.campaign);
    const query = normaliseReport(input, this.limits, campaign);
    const plan = readPlanOf(query, this.limits);
    const groups = await this.read(plan, { signal, work });
    return toReportRows(groups, plan, this.limits.maxGroups);
  }

  /**
   * 403 unless the key may read the owner; then the campaign named, if any (400 when the owner has
   * none of that token, 503 before the registry is loaded). In this order, so a key never learns
   * anything about the tokens of owners it cannot read.
   */
  scope(caller: ApiKeyPrincipal, ownerId: string, token: string | undefined): CampaignRecord | undefined {
    if (!caller.ownerIds.has(ownerId)) throw new ForbiddenError('this api_key may not read this owner_id');
    return token === undefined ? undefined : campaignOf(this.campaigns, ownerId, token);
  }

  /**
   * The plan's merged groups (as many as the plan may hold: readPlanOf with these limits), within
   * the report's deadline; nothing is read when nothing can match.
   */
  async read(plan: ReadPlan, context: ReadContext = {}): Promise<ReportGroup[]> {
    if (plan.query.matchesNothing) return [];
    const deadline = Date.now() + this.limits.deadlineMs;
    return this.source.count(plan, { deadline, signal: context.signal, work: context.work });
  }
}
