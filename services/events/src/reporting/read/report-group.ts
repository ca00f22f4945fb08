import { aggregateOf, reportMergeInto, reportOwn, type AggregateName, type GroupStates } from '../../metrics/registry';

/**
 * One group of a report: its row time (series), name, group_by values (as stored) and the merged
 * states, with the keys the answer's steps find it by (reportGroup makes them when first asked).
 */
export interface ReportGroup {
  time?: number;
  name: string;
  dims: readonly string[];
  states: GroupStates;
  /** Its name and group fields as one string: what top-N ranks and a series fills (a row is `time|id`). */
  readonly id: string;
  /** Its group fields alone: a set of group fields over every name (conversion rates, their ranks). */
  readonly dimsId: string;
  /**
   * Its numbers are withheld under the country floor (country-floor.ts): its states are empty
   * and its row shows `below_floor: true` with null numbers.
   */
  belowFloor?: true;
}

/**
 * A group of the answer. Its keys are made from its name and group fields when a step first asks
 * for them (a rank, a series' fill, the country floor, conversion rates): a report without those
 * steps (most grouped reports, thousands of url groups) never builds them.
 */
export function reportGroup(name: string, dims: readonly string[], states: GroupStates, time?: number): ReportGroup {
  return new AnswerGroup(name, dims, states, time);
}

/** A copy of `g` with other states (withheld when `belowFloor`); keys it made already come along. */
export function withStates(g: ReportGroup, states: GroupStates, belowFloor = g.belowFloor === true): ReportGroup {
  const copy = new AnswerGroup(g.name, g.dims, states, g.time);
  if (g instanceof AnswerGroup) copy.takeKeys(g);
  if (belowFloor) copy.belowFloor = true;
  return copy;
}

class AnswerGroup implements ReportGroup {
  declare time?: number;
  declare belowFloor?: true;
  private madeId: string | undefined = undefined;
  private madeDimsId: string | undefined = undefined;

  constructor(
    readonly name: string,
    readonly dims: readonly string[],
    public states: GroupStates,
    time: number | undefined,
  ) {
    if (time !== undefined) this.time = time;
  }

  get dimsId(): string {
    return (this.madeDimsId ??= dimsIdOf(this.dims));
  }

  get id(): string {
    return (this.madeId ??= idOf(this.name, this.dimsId));
  }

  takeKeys(from: AnswerGroup): void {
    this.madeId = from.madeId;
    this.madeDimsId = from.madeDimsId;
  }
}

/**
 * Length-prefixed parts, so no value (a NUL or a separator inside a url) can make two groups
 * collide; a time before them is followed by `|`, which no number holds.
 */
function dimsIdOf(dims: readonly string[]): string {
  let key = '';
  for (const d of dims) key += `${d.length}:${d}`;
  return key;
}

function idOf(name: string, dimsId: string): string {
  return `${name.length}:${name}|${dimsId}`;
}

/** States the caller owns, equal to `states` (whose own may be shared). */
function ownStates(states: GroupStates): GroupStates {
  const out: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(states)) out[name] = reportOwn(aggregateOf(name as AggregateName), state);
  return out as GroupStates;
}

/** `part` merged into `into` (owned), aggregate by aggregate, with each aggregate's own merge. */
function mergeStatesInto(into: GroupStates, part: GroupStates): void {
  const states = into as Record<string, unknown>;
  for (const [name, state] of Object.entries(part)) {
    const aggregate = aggregateOf(name as AggregateName);
    states[name] =
      states[name] === undefined ? reportOwn(aggregate, state) : reportMergeInto(aggregate, states[name], state);
  }
}

/** The group of each name, without group fields, with `states` (empty): the rows fill_zeros adds for names asked without events. */
export function namedGroups(names: readonly string[], states: GroupStates): ReportGroup[] {
  return names.map((name) => reportGroup(name, [], states));
}

/**
 * Each group's total over the row times, what a rank compares: one group per `id`, the states of
 * its rows merged into states of its own with each aggregate's own merge (visitors and
 * quantiles: the union, never a sum; `groups` are left as they are), withheld (`belowFloor`)
 * while every row of it is; then each of `named` without a row, as it is (a total of 0).
 */
export function groupTotals(groups: readonly ReportGroup[], named: readonly ReportGroup[]): ReportGroup[] {
  const totals = new Map<string, ReportGroup>();
  // a group of one row is its own total (nothing merges into it); a second row makes it owned
  const owned = new Set<string>();
  for (const g of groups) {
    let total = totals.get(g.id);
    // `belowFloor` comes along: a total is withheld while every row of it is
    if (!total) totals.set(g.id, g);
    else {
      if (!owned.has(g.id)) {
        totals.set(g.id, (total = withStates(total, ownStates(total.states))));
        owned.add(g.id);
      }
      // a withheld row's states are empty: merging them adds nothing
      mergeStatesInto(total.states, g.states);
      if (!g.belowFloor) delete total.belowFloor;
    }
  }
  for (const g of named) if (!totals.has(g.id)) totals.set(g.id, g);
  return [...totals.values()];
}
