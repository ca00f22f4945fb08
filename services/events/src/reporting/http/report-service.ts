import { ForbiddenError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../../api-keys/api-key-service';
import type { CountSource } from '../read/count-source';
import type { InFlightWork } from '../read/in-flight-work';
import { parseReportRequest, type ReportLimits } from '../request/parse-report-request';
import { readPlanOf } from '../read/read-plan';
import { toReportRows, type ReportRow } from '../read/report-rows';

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

/** The report use case: validate, check the key's owner scope, count within the budget, shape. */
export class ReportService {
  constructor(
    private readonly source: CountSource,
    private readonly limits: ReportServiceLimits,
  ) {}

  /** `work` collects the report's database calls: one that stops early may leave some running. */
  async report(
    caller: ApiKeyPrincipal,
    body: unknown,
    signal?: AbortSignal,
    work?: InFlightWork,
  ): Promise<ReportRow[]> {
    const query = parseReportRequest(body, this.limits);
    if (!caller.ownerIds.has(query.ownerId)) throw new ForbiddenError('this api_key may not read this owner_id');
    const deadline = Date.now() + this.limits.deadlineMs;
    const maxGroups = query.limit !== undefined ? this.limits.maxRankedGroups : this.limits.maxGroups;
    // what the report reads, worked out once and handed down
    const plan = readPlanOf(query, { countryFloor: this.limits.countryFloor });
    const groups = await this.source.count(plan, {
      deadline,
      signal,
      maxGroups,
      maxGroupBytes: this.limits.maxGroupBytes,
      work,
    });
    return toReportRows(groups, plan, this.limits.maxGroups);
  }
}
