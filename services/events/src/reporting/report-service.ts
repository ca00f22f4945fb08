import { ForbiddenError } from '@cm/platform';
import type { ApiKeyPrincipal } from '../api-keys/api-key-service';
import type { CountSource } from './count-source';
import { parseReportRequest, type ReportLimits } from './parse-report-request';
import { toReportRows, type ReportRow } from './report-rows';

/** The report use case: validate, check the key's owner scope, count, shape. */
export class ReportService {
  constructor(private readonly source: CountSource, private readonly limits: ReportLimits) {}

  async report(caller: ApiKeyPrincipal, body: unknown): Promise<ReportRow[]> {
    const query = parseReportRequest(body, this.limits);
    if (!caller.ownerIds.has(query.ownerId)) throw new ForbiddenError('this api_key may not read this owner_id');
    const groups = await this.source.count(query);
    return toReportRows(groups, query);
  }
}
