import type { ApiKeyPrincipal } from '../../api-keys/api-key-service';
import { readPlanOf } from '../read/read-plan';
import type { ReadContext, ReportService } from '../http/report-service';
import type { SaltPeriod } from './scorecard-caveats';
import { scorecardQuery } from './scorecard-query';
import { validateScorecardBody } from './scorecard-schema';
import { shapeScorecard } from './scorecard-shape';
import type { Scorecard } from './scorecard-types';

export interface ScorecardOptions {
  /** VISITOR_SALT_PERIOD: what the caveats say about cookieless visitors. */
  saltPeriod: SaltPeriod;
  /** The clock the flight is clipped at (Date.now). */
  now?: () => number;
}

/**
 * The campaign scorecard: validate, the key's owner scope and the campaign (the report's own
 * steps and order), then one read of the campaign's URLs over its flight so far, a day per row,
 * and the figures computed from its merged group states.
 */
export class ScorecardService {
  constructor(
    private readonly reports: ReportService,
    private readonly opts: ScorecardOptions,
  ) {}

  async scorecard(caller: ApiKeyPrincipal, body: unknown, context: ReadContext = {}): Promise<Scorecard> {
    const input = validateScorecardBody(body);
    const campaign = this.reports.scope(caller, input.owner_id, input.campaign)!;
    const now = (this.opts.now ?? Date.now)();
    const query = scorecardQuery(input, campaign, this.reports.limits, now);
    const groups = await this.reports.read(readPlanOf(query, this.reports.limits), context);
    return shapeScorecard({ campaign, body: input, query, groups, now, saltPeriod: this.opts.saltPeriod });
  }
}
