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
 * (mergeRowInto), every other merges it as a part.
 */
export type RowStates = { [K in AggregateName]: StateOf<Registry[K]> } & { unclaimed: number };

const BIT = Object.fromEntries(AGGREGATE_NAMES.map((name, i) => [name, 1 << i])) as Record<AggregateName, number>;

export function statesOfRow(row: Document): RowStates {
  const states = { unclaimed: (1 << AGGREGATE_NAMES.length) - 1 } as Record<string, unknown>;
  for (const name of AGGREGATE_NAMES) states[name] = aggregateOf(name).fromRow(row);
  return states as RowStates;
}

/**
 * Each aggregate's empty state, made once and shared: what a builder's cell holds for a state no
 * event reached. Never merged into: the first state an event brings is made by `own`.
 */
const SHARED_EMPTY = Object.fromEntries(
  AGGREGATE_NAMES.map((name) => [name, Object.freeze(aggregateOf(name).empty())]),
) as Record<AggregateName, unknown>;
/** Per aggregate, its states on every device while no event reached any: one frozen array, shared. */
const UNTOUCHED = Object.fromEntries(
  AGGREGATE_NAMES.map((name) => [name, Object.freeze([SHARED_EMPTY[name], SHARED_EMPTY[name], SHARED_EMPTY[name]])]),
) as Record<AggregateName, readonly unknown[]>;

/**
 * A builder's cell of no events: every aggregate's states are the shared empty ones, and a state
 * is made when the first event reaches it (`mergeRowInto`, `mergeCellInto`). An entry of one event
 * on one device holds that device's states of the aggregates the event has, nothing for the other
 * devices, nor for the aggregates its family does not keep: most entries of a unit have a few
 * events (an empty cell of every state made up front held about 780 bytes, 18 states). Read it as
 * any cell; write it only through those two functions.
 */
export function untouchedCellValue(): CellValue {
  return {
    count: UNTOUCHED.count,
    latest: UNTOUCHED.latest,
    uniques: UNTOUCHED.uniques,
    sums: UNTOUCHED.sums,
    quantiles: UNTOUCHED.quantiles,
    frequency: UNTOUCHED.frequency,
  } as unknown as CellValue;
}

/**
 * `part` (on device `device`; not empty) merged into the states of `into` (made by
 * untouchedCellValue): its first state there is `part` itself when `take` (the caller gives it
 * up) or else `own(part)`, later ones are merged into it. Returns whether `part` was taken. An
 * aggregate stored as the union of its devices (`folded`) keeps that union in one slot (the
 * first device an event reached, which the entry's counts mark): only the union is ever read.
 */
function mergeStateInto(
  into: Record<AggregateName, unknown[]>,
  name: AggregateName,
  aggregate: Aggregate<unknown>,
  part: unknown,
  device: number,
  take: boolean,
): boolean {
  const empty = SHARED_EMPTY[name];
  let devices = into[name];
  if (devices === UNTOUCHED[name]) into[name] = devices = [empty, empty, empty];
  let d = device;
  if (aggregate.storage === 'folded')
    for (let i = 0; i < 3; i++)
      if (devices[i] !== empty) {
        d = i;
        break;
      }
  const held = devices[d];
  if (held === empty) {
    devices[d] = take ? part : aggregate.own(part);
    return take;
  }
  devices[d] = aggregate.mergeInto(held, part);
  return false;
}

/**
 * `part` merged into `into` (made by untouchedCellValue), for the aggregates `kept` (a family's):
 * the others are its family's to drop. `part` is left as it was and may be shared (a page's).
 */
export function mergeCellInto(into: CellValue, part: CellValue, kept: readonly AggregateName[]): void {
  const target = into as Record<AggregateName, unknown[]>;
  const source = part as Record<AggregateName, readonly unknown[]>;
  for (const name of kept) {
    const aggregate = aggregateOf(name);
    const states = source[name];
    for (let d = 0; d < 3; d++) {
      const state = states[d];
      if (!aggregate.isEmpty(state)) mergeStateInto(target, name, aggregate, state, d, false);
    }
  }
}

/**
 * One hour-pipeline row's states merged into `into` (made by untouchedCellValue) under the row's
 * device, for the aggregates `kept`: the builder's hot loop, so nothing is made or merged for the
 * other devices, an aggregate the family does not keep, or a state the row does not have, and a
 * new state takes the row's own when no other cell took it (one allocation fewer per new entry).
 */
export function mergeRowInto(into: CellValue, states: RowStates, device: number, kept: readonly AggregateName[]): void {
  const target = into as Record<AggregateName, unknown[]>;
  const source = states as Record<AggregateName, unknown>;
  for (const name of kept) {
    const aggregate = aggregateOf(name);
    const state = source[name];
    if (aggregate.isEmpty(state)) continue;
    const bit = BIT[name];
    if (mergeStateInto(target, name, aggregate, state, device, (states.unclaimed & bit) !== 0))
      states.unclaimed &= ~bit;
  }
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
