import type { Document } from 'mongodb';
import { MEASURE_MAX, type MeasureName } from '@cm/contracts';
import type { RawEvent } from './aggregate';
import { MEASURE_LIST } from './measure-list';

/**
 * The pipelines group by each measure's value too (one row per distinct value of a group, with
 * how many events had it), so that sums are exact and quantile sketches see every value; the
 * measure aggregates (sums, quantiles) both read the rows this way. Field names are fixed: no
 * request data ever becomes one.
 */
const KEY_OF: Readonly<Record<MeasureName, string>> = { engaged_ms: 'me', scroll_depth: 'ms', value: 'mv' };

/** The `_id` fields both pipelines add for the measures. */
export function measureGroupKey(): Document {
  const key: Document = {};
  for (const name of MEASURE_LIST) key[KEY_OF[name]] = `$measures.${name}`;
  return key;
}

/** The events of a row: the `$group` accumulator both measure aggregates declare (the same one). */
const MEASURE_COUNT_FIELD = 'mc';
export function measureCountGroup(): Document {
  return { [MEASURE_COUNT_FIELD]: { $sum: 1 } };
}

/** One raw event as a row of its own, as the pipelines' `$group` would give it: what `add` folds, by the same code as a row. */
export function rowOfEvent(event: RawEvent): Document {
  const id: Document = {};
  for (const name of MEASURE_LIST) {
    const value = event.measures?.[name];
    if (value !== undefined) id[KEY_OF[name]] = value;
  }
  return { _id: id, [MEASURE_COUNT_FIELD]: 1 };
}

/** Calls `use` for each measure the row's events carried, with its value and how many events had it. */
export function forEachMeasureOfRow(row: Document, use: (index: number, value: number, events: number) => void): void {
  const id = row._id as Document;
  const events = Number(row[MEASURE_COUNT_FIELD]);
  for (let i = 0; i < MEASURE_LIST.length; i++) {
    const value: unknown = id[KEY_OF[MEASURE_LIST[i]!]];
    if (isMeasureValue(value, MEASURE_LIST[i]!)) use(i, value, events);
  }
}

/** Whether a stored value is a measure as ingest validates it (anything else is ignored, as if absent). */
function isMeasureValue(value: unknown, name: MeasureName): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MEASURE_MAX[name];
}
