import type { DistinctSketch } from '../../sketches/distinct-sketch';
import type { SumsState } from '../../rollups/aggregates/sums-aggregate';
import type { QuantileParts, QuantilesState } from '../../rollups/aggregates/quantiles-aggregate';
import type { InFlightWork } from './in-flight-work';
import type { ReportQuery } from '../request/report-query';

/** The latest matching event of a group: what metadata values are read from. */
export interface LatestEvent {
  created: Date;
  /** Event id (UUIDv7): breaks ties between events of the same millisecond. */
  id: string;
  /** Values of the requested metadata keys, in the order of `ReportQuery.metadataKeys` ("" when absent). */
  metadata: string[];
}

/** What a group holds besides its count, each only when the report asks for it. */
export interface GroupParts {
  /** Present when metadata keys were requested. */
  latest?: LatestEvent;
  /** Present when uniques were requested: the group's visitors (a sketch, exact while small). */
  uniques?: DistinctSketch;
  /** Present when a sum or an average was requested: the measures' event counts and sums. */
  sums?: SumsState;
  /** Present when a percentile or a share was requested: the measures' quantile sketches (stored ones decoded when the group is merged). */
  quantiles?: QuantileParts;
}

/** One group of a report: the event name, the requested group fields, and its count. */
export interface GroupCount extends GroupParts {
  name: string;
  content_id?: string;
  url?: string;
  value: number;
  /** Series only: the start (epoch ms) of the row's time bucket. */
  time?: number;
  /** The group's merged quantile sketches. */
  quantiles?: QuantilesState;
}

/** What bounds one report's work (its deadline, the caller going away, its groups): the terms of its ReportBudget. */
export interface BudgetTerms {
  /** Epoch ms by which the report must be answered. */
  deadline: number;
  /** Aborted when the client disconnected: every read stops. */
  signal?: AbortSignal;
  /** Groups (rows of a series) the report may hold while merging; more is a 400 naming the cap. */
  maxGroups: number;
  /** Estimated bytes those groups may take (default MAX_GROUP_BYTES); more is a 400 naming the bound. */
  maxGroupBytes?: number;
  /** Every database call of the report is tracked here, so its caller knows when the work settled. */
  work?: InFlightWork;
}

/**
 * Where report counts come from. The report endpoint depends only on this interface; the one
 * implementation (PlannedCountSource) answers covered units from rollup cells and the rest from
 * raw day buckets (docs/architecture.md, Rollups). A source returns each group once (already merged).
 */
export interface CountSource {
  count(query: ReportQuery, terms?: BudgetTerms): Promise<GroupCount[]>;
}
