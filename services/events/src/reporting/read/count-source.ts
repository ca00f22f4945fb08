import type { InFlightWork } from './in-flight-work';
import type { ReadPlan } from './read-plan';
import type { ReportGroup } from './report-group';

/**
 * What bounds one report's database work (its deadline, the caller going away): the terms of its
 * ReportBudget. The groups it may hold are the read plan's (ReadPlan.maxGroups).
 */
export interface BudgetTerms {
  /** Epoch ms by which the report must be answered. */
  deadline: number;
  /** Aborted when the client disconnected: every read stops. */
  signal?: AbortSignal;
  /** Every database call of the report is tracked here, so its caller knows when the work settled. */
  work?: InFlightWork;
}

/**
 * Where a report's groups come from. The report endpoint depends only on this interface; the one
 * implementation (PlannedCountSource) answers covered units from rollup cells and the rest from
 * raw day buckets (docs/architecture.md, Rollups). A source returns each group once (merged).
 */
export interface CountSource {
  count(plan: ReadPlan, terms?: BudgetTerms): Promise<ReportGroup[]>;
}
