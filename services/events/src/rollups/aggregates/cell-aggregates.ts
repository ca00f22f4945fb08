import type { Document } from 'mongodb';
import type { Aggregate, PerDevice } from './aggregate';
import { countAggregate } from './count-aggregate';
import { latestAggregate } from './latest-aggregate';

/**
 * The registry: every aggregate a cell keeps, by its field. The cell table, the stored cell
 * (cell-document.ts), the hour pipeline and the cell reader iterate it; adding an aggregate is
 * its file and one line here (appended: the order of `entry` aggregates is their place in a
 * stored entry, so existing cells stay readable).
 */
export const CELL_AGGREGATES = {
  counts: countAggregate,
  latest: latestAggregate,
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
/** The one aggregate stored in the side field `l`, if any. */
const SIDE_FIELD: Field | undefined = FIELDS.find((f) => any(f).stored === 'side');

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

/** The side field's item for one entry as JSON text (undefined: no side aggregate). */
export function encodeSide(value: CellValue): string | undefined {
  return SIDE_FIELD === undefined ? undefined : JSON.stringify(any(SIDE_FIELD).encode(value[SIDE_FIELD]));
}

/**
 * A stored entry's states, set on `into` (no object of its own per entry): `entry` of the
 * document's `e`, `side` its item in `l` (undefined when absent). `keyCount` keys lead the entry.
 */
export function decodeCellValue<T extends object>(
  entry: readonly unknown[],
  keyCount: number,
  side: unknown,
  into: T,
): T & CellValue {
  const value = into as Record<string, unknown>;
  for (let i = 0; i < ENTRY_FIELDS.length; i++)
    value[ENTRY_FIELDS[i]!] = any(ENTRY_FIELDS[i]!).decode(entry[keyCount + i]);
  if (SIDE_FIELD !== undefined) value[SIDE_FIELD] = any(SIDE_FIELD).decode(side);
  return into as T & CellValue;
}

/** Where an `entry` aggregate's states sit in a stored entry after its `keyCount` keys (the reader's hot path reads it in place). */
export function entryIndex(field: Field, keyCount: number): number {
  return keyCount + ENTRY_FIELDS.indexOf(field);
}

/** The report pipeline's `$group` accumulators of every aggregate (`metadataKeys` stored, escaped). */
export function reportGroupFields(metadataKeys: readonly string[]): Document {
  const fields: Document = {};
  for (const field of FIELDS) Object.assign(fields, any(field).reportGroup(metadataKeys));
  return fields;
}

/** Sets every aggregate's answer from one report pipeline row on `into` (a GroupCount); an undefined answer is left out. */
export function readReportAnswers<T extends object>(row: Document, keyCount: number, into: T): T {
  for (const field of FIELDS) {
    const aggregate = any(field);
    const answer = aggregate.fromReportGroup(row, keyCount);
    if (answer !== undefined) (into as Record<string, unknown>)[aggregate.answerField] = answer;
  }
  return into;
}
