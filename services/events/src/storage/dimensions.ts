/**
 * The event fields a report can filter and group by besides the event name (and the device type,
 * which every rollup cell keeps apart inside its entries). Each is a string field of the stored
 * event; an event without it has the empty value. `country` shows "unknown" for that: an event
 * whose visitor's country could not be told.
 */
export const DIMENSIONS = [
  'content_id',
  'url',
  'country',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'referrer',
] as const;

export type Dimension = (typeof DIMENSIONS)[number];

/** What a report shows, and filters by, for an event without the field. */
function emptyValueOf(dimension: Dimension): string {
  return dimension === 'country' ? 'unknown' : '';
}

/** A stored (raw or cell) value as a report shows it. */
export function shownValue(dimension: Dimension, stored: string): string {
  return stored === '' ? emptyValueOf(dimension) : stored;
}

/** A report's filter value as stored. */
export function storedValue(dimension: Dimension, shown: string): string {
  return dimension === 'country' && shown === 'unknown' ? '' : shown;
}

/** The field's value in a pipeline: "" when the event has none (null, absent, or another type). */
export function pipelineValue(dimension: Dimension): unknown {
  return { $ifNull: [`$${dimension}`, ''] };
}

/** A raw `$match` condition on the field for stored values (an empty value also matches a missing field). */
export function matchCondition(stored: readonly string[]): unknown {
  const values: unknown[] = stored.includes('') ? [...stored, null] : [...stored];
  return values.length === 1 ? values[0] : { $in: values };
}

/** A cell's or a row's value of the field, as stored: a string, "" for anything else. */
export function storedOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
