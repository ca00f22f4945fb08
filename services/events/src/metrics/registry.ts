import type { Document } from 'mongodb';
import type { Aggregate, ParsedMetric, PerDevice, ReportAsk } from './aggregate';
import { countAggregate } from './count-aggregate';
import { frequencyAggregate } from './frequency-aggregate';
import { latestAggregate } from './latest-aggregate';
import { quantilesAggregate } from './quantiles-aggregate';
import { sumsAggregate } from './sums-aggregate';
import { uniquesAggregate } from './uniques-aggregate';

/**
 * The registry: every aggregate a rollup cell keeps and a report can ask for. The cell table, the
 * stored pages, the pipelines, the cell reader, the group merge and the rows iterate it; adding an
 * aggregate is its file and one line here (its `column` is its place in a stored page, so the
 * order here does not matter to stored cells).
 */
export const AGGREGATES = {
  count: countAggregate,
  latest: latestAggregate,
  uniques: uniquesAggregate,
  sums: sumsAggregate,
  quantiles: quantilesAggregate,
  frequency: frequencyAggregate,
} as const;

type Registry = typeof AGGREGATES;
export type AggregateName = keyof Registry;
type StateOf<A> = A extends Aggregate<infer S, infer _M> ? S : never;

/** What a rollup cell keeps: per aggregate, one state per device. */
export type CellValue = { [K in AggregateName]: PerDevice<StateOf<Registry[K]>> };
/** What a report group keeps: per aggregate the report asked for, one state (its devices merged). */
export type GroupStates = { [K in AggregateName]?: StateOf<Registry[K]> };

export const AGGREGATE_NAMES = Object.keys(AGGREGATES) as AggregateName[];
/** Each aggregate as the untyped interface the generic code iterates with. */
export function aggregateOf(name: AggregateName): Aggregate<unknown> {
  return AGGREGATES[name] as Aggregate<unknown>;
}

/** A report group's own state from its first part: the aggregate's report form (Aggregate.reportOwn) when it has one. */
export function reportOwn(aggregate: Aggregate<unknown>, part: unknown, ask?: ReportAsk): unknown {
  return aggregate.reportOwn ? aggregate.reportOwn(part, ask) : aggregate.own(part);
}

/** `part` merged into a report group's own state (Aggregate.reportMergeInto, else mergeInto). */
export function reportMergeInto(
  aggregate: Aggregate<unknown>,
  target: unknown,
  part: unknown,
  ask?: ReportAsk,
): unknown {
  return aggregate.reportMergeInto ? aggregate.reportMergeInto(target, part, ask) : aggregate.mergeInto(target, part);
}

/**
 * A cell of no events the caller owns: one empty state per device (never one object in two
 * slots: an aggregate whose empty state is a new mutable object is merged into in place).
 */
export function emptyCellValue(): CellValue {
  const value: Partial<Record<AggregateName, unknown[]>> = {};
  for (const name of AGGREGATE_NAMES) {
    const aggregate = aggregateOf(name);
    value[name] = [aggregate.empty(), aggregate.empty(), aggregate.empty()];
  }
  return value as CellValue;
}

/**
 * One `$group` row of the hour pipeline: each aggregate's state of it (on the row's one device),
 * made for this row alone. `unclaimed`: a bit per aggregate (registry order) whose state no cell
 * has taken yet: the first cell that needs a new state takes the row's own instead of a copy
 * (BuilderCell.mergeRow), every other merges it as a part. An aggregate with a `compactOfRow`
 * form for the row holds that form instead of a state (its bit in `compact`).
 */
export type RowStates = { [K in AggregateName]: StateOf<Registry[K]> } & {
  unclaimed: number;
  /** A bit per aggregate (registry order) whose place holds its `compactOfRow` form, not a state. */
  compact: number;
};

export function statesOfRow(row: Document): RowStates {
  const states = { unclaimed: (1 << AGGREGATE_NAMES.length) - 1, compact: 0 } as Record<string, unknown>;
  let compact = 0;
  for (let i = 0; i < AGGREGATE_NAMES.length; i++) {
    const name = AGGREGATE_NAMES[i]!;
    const aggregate = aggregateOf(name);
    const form = aggregate.compactOfRow?.(row);
    if (form === undefined) states[name] = aggregate.fromRow(row);
    else {
      states[name] = form;
      compact |= 1 << i;
    }
  }
  states.compact = compact;
  return states as RowStates;
}

/** The hour pipeline's `$group` accumulators and `_id` fields of every aggregate. */
export function hourRowParts(): { key: Document; group: Document } {
  const key: Document = {};
  const group: Document = {};
  for (const name of AGGREGATE_NAMES) {
    const aggregate = aggregateOf(name);
    Object.assign(key, aggregate.rowKey?.());
    Object.assign(group, aggregate.rowGroup());
  }
  return { key, group };
}

/** The same for a report's raw parts: only the aggregates the report asks for. */
export function reportRowParts(ask: ReportAsk): { key: Document; group: Document } {
  const key: Document = {};
  const group: Document = {};
  for (const name of askedAggregates(ask)) {
    const aggregate = aggregateOf(name);
    Object.assign(key, aggregate.reportRowKey?.(ask) ?? aggregate.rowKey?.());
    Object.assign(group, aggregate.reportRowGroup?.(ask) ?? aggregate.rowGroup());
  }
  return { key, group };
}

/** A report pipeline row's states, for the aggregates the report asks for. */
export function groupStatesOfRow(row: Document, ask: ReportAsk): GroupStates {
  const states: Record<string, unknown> = {};
  for (const name of askedAggregates(ask)) {
    const aggregate = aggregateOf(name);
    states[name] = aggregate.fromReportRow ? aggregate.fromReportRow(row, ask) : aggregate.fromRow(row);
  }
  return states as GroupStates;
}

/** The aggregates a report needs, in registry order. */
export function askedAggregates(ask: ReportAsk): AggregateName[] {
  return AGGREGATE_NAMES.filter((name) => aggregateOf(name).asked(ask));
}

/** The aggregate that answers a metric name, with the metric parsed; undefined when none does. */
export function parseMetric(
  name: string,
): { aggregate: AggregateName; metric: ParsedMetric } | { error: string } | undefined {
  for (const aggregate of AGGREGATE_NAMES) {
    const parsed = aggregateOf(aggregate).parseMetric?.(name);
    if (parsed === undefined) continue;
    return 'error' in parsed ? parsed : { aggregate, metric: parsed };
  }
  return undefined;
}
