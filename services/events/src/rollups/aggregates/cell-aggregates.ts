import type { Document } from 'mongodb';
import type { Aggregate, PerDevice, ReportAsk, SideField } from './aggregate';
import { countAggregate } from './count-aggregate';
import { allDeviceUniquesAggregate } from './all-device-uniques-aggregate';
import { latestAggregate } from './latest-aggregate';
import { quantilesAggregate } from './quantiles-aggregate';
import { sumsAggregate } from './sums-aggregate';
import { uniquesAggregate } from './uniques-aggregate';

/**
 * The registry: every aggregate a cell keeps, by its field. The cell table, the stored cell
 * (cell-document.ts), the hour pipeline and the cell reader iterate it; adding an aggregate is
 * its file and one line here (appended: the order of `entry` aggregates is their place in a
 * stored entry, so existing cells stay readable).
 */
export const CELL_AGGREGATES = {
  counts: countAggregate,
  latest: latestAggregate,
  uniques: uniquesAggregate,
  sums: sumsAggregate,
  quantiles: quantilesAggregate,
  uniquesAllDevices: allDeviceUniquesAggregate,
} as const;

type Registry = typeof CELL_AGGREGATES;
type StateOf<A> = A extends Aggregate<infer S, infer _A> ? S : never;

/** What a cell keeps per device: one field per registered aggregate. */
export type CellValue = { [K in keyof Registry]: PerDevice<StateOf<Registry[K]>> };

type Field = keyof CellValue;
const FIELDS = Object.keys(CELL_AGGREGATES) as Field[];
const any = (field: Field) => CELL_AGGREGATES[field] as Aggregate<unknown>;
/** The aggregates stored inside each entry, in their stored order. */
const ENTRY_FIELDS = FIELDS.filter((f) => any(f).stored === 'entry');
/** The aggregates stored in side fields of their own, with their document field. */
const SIDE: Array<{ field: Field; doc: SideField }> = FIELDS.filter((f) => any(f).stored === 'side').map((f) => ({
  field: f,
  doc: any(f).sideField!,
}));

/** Side fields' JSON text, or their decoded items, by document field. */
export type Sides<T> = Partial<Record<SideField, T>>;

/** Merges `from` into `into`, device by device, for every registered aggregate. */
export function mergeCellValue(into: CellValue, from: CellValue): void {
  for (const field of FIELDS) {
    const aggregate = any(field);
    const target = into[field] as unknown[];
    const source = from[field] as readonly unknown[];
    for (let d = 0; d < 3; d++) target[d] = aggregate.merge(target[d], source[d]);
  }
}

/** A copy whose per-device arrays can be merged into without touching `value`. */
export function copyCellValue(value: CellValue): CellValue {
  const copy: Partial<Record<Field, unknown[]>> = {};
  for (const field of FIELDS) copy[field] = [...value[field]];
  return copy as CellValue;
}

/** The `$group` accumulators of every aggregate, for the hour pipeline. */
export function hourGroupFields(): Document {
  const fields: Document = {};
  for (const field of FIELDS) Object.assign(fields, any(field).group());
  return fields;
}

/** What the aggregates add to the hour pipeline's `$group` `_id`. */
export function hourGroupKeys(): Document {
  const keys: Document = {};
  for (const field of FIELDS) Object.assign(keys, any(field).groupKey?.());
  return keys;
}

/** A cell of one `$group` row: the row's device gets the row's states, the others are empty. */
export function cellValueOfRow(row: Document, device: number): CellValue {
  const value: Partial<Record<Field, unknown[]>> = {};
  for (const field of FIELDS) {
    const aggregate = any(field);
    const states = [aggregate.empty(), aggregate.empty(), aggregate.empty()];
    states[device] = aggregate.fromGroup(row);
    value[field] = states;
  }
  return value as CellValue;
}

/** One stored entry as JSON text: its keys, then the `entry` aggregates. */
export function encodeEntry(keys: readonly unknown[], value: CellValue): string {
  const entry: unknown[] = [...keys];
  for (const field of ENTRY_FIELDS) entry.push(any(field).encode(value[field]));
  return JSON.stringify(entry);
}

/** Each side field's item for one entry as JSON text. */
export function encodeSides(value: CellValue): Sides<string> {
  const sides: Sides<string> = {};
  for (const { field, doc } of SIDE) sides[doc] = JSON.stringify(any(field).encode(value[field]));
  return sides;
}

/**
 * A stored entry's states, set on `into` (no object of its own per entry): `entry` of the
 * document's `e`, `side` its item in its side field (absent: a cell written before that aggregate
 * existed, empty). `keyCount` keys lead the entry.
 */
export function decodeCellValue<T extends object>(
  entry: readonly unknown[],
  keyCount: number,
  sides: Sides<unknown>,
  into: T,
): T & CellValue {
  const value = into as Record<string, unknown>;
  for (let i = 0; i < ENTRY_FIELDS.length; i++)
    value[ENTRY_FIELDS[i]!] = any(ENTRY_FIELDS[i]!).decode(entry[keyCount + i]);
  for (const { field, doc } of SIDE) value[field] = any(field).decode(sides[doc]);
  return into as T & CellValue;
}

/** Where an `entry` aggregate's states sit in a stored entry after its `keyCount` keys (the reader's hot path reads it in place). */
export function entryIndex(field: Field, keyCount: number): number {
  return keyCount + ENTRY_FIELDS.indexOf(field);
}

/** The report pipeline's `$group` accumulators of every aggregate. */
export function reportGroupFields(ask: ReportAsk): Document {
  const fields: Document = {};
  for (const field of FIELDS) Object.assign(fields, any(field).reportGroup(ask));
  return fields;
}

/** What the aggregates add to the report pipeline's `$group` `_id` (the visitor, for uniques). */
export function reportGroupKeys(ask: ReportAsk): Document {
  const keys: Document = {};
  for (const field of FIELDS) Object.assign(keys, any(field).reportGroupKey?.(ask));
  return keys;
}

/** The side fields a report reads (the others stay on the server). */
export function sideFieldsFor(ask: ReportAsk): SideField[] {
  const out: SideField[] = [];
  for (const { field, doc } of SIDE) {
    if (any(field).asked(ask)) out.push(doc);
  }
  return out;
}

/** Sets every aggregate's answer from one report pipeline row on `into` (a GroupCount); an undefined answer is left out. */
export function readReportAnswers<T extends object>(row: Document, ask: ReportAsk, into: T): T {
  for (const field of FIELDS) {
    const aggregate = any(field);
    const answer = aggregate.fromReportGroup(row, ask);
    if (answer !== undefined) (into as Record<string, unknown>)[aggregate.answerField] = answer;
  }
  return into;
}
