import { ValidationError } from '@cm/platform';
import { parseMetric } from '../../metrics/registry';
import type { AggregateMetric, Conversion } from './report-query';
import type { ReportBody } from './report-schema';

/** What a report asks to be answered and ranked by: its metrics, the aggregates' share, the order field, the conversion. */
export interface AskedMetrics {
  /** As named, `['count']` when not given. */
  metrics: string[];
  aggregateMetrics: AggregateMetric[];
  /** `value`, `name` or a requested metric; undefined: no order asked (rows in name order). */
  orderField?: string;
  conversion?: Conversion;
}

/**
 * The metrics of a validated body checked against the fields that name them (400 naming
 * `order_by`, `conversion` or `name`), in that order. Pure.
 */
export function askedMetrics(input: ReportBody): AskedMetrics {
  const metrics = input.metrics ?? ['count'];
  const orderField =
    orderFieldOf(input.order_by, metrics) ?? (input.limit !== undefined || input.order ? 'value' : undefined);
  const conversion = conversionOf(input.conversion, metrics, input.name);
  return { metrics, aggregateMetrics: aggregateMetricsOf(metrics), orderField, conversion };
}

/** `value`, `name`, or a requested metric other than count (whose answer is `value`). */
function orderFieldOf(orderBy: string | undefined, metrics: readonly string[]): string | undefined {
  if (orderBy === undefined || orderBy === 'value' || orderBy === 'name') return orderBy;
  if (orderBy === 'count') return 'value';
  if (metrics.includes(orderBy)) return orderBy;
  throw new ValidationError('invalid body', [
    { field: 'order_by', message: `must be value, name or one of the requested metrics; add "${orderBy}" to metrics` },
  ]);
}

/** The conversion of the `conversion_rate` metric: both or neither, and both names reported. */
function conversionOf(
  conversion: Conversion | undefined,
  metrics: readonly string[],
  names: readonly string[] | undefined,
): Conversion | undefined {
  const asked = metrics.includes('conversion_rate');
  if (asked && !conversion)
    throw new ValidationError('invalid body', [
      { field: 'conversion', message: 'is required with the conversion_rate metric: {"from": name, "to": name}' },
    ]);
  if (!conversion) return undefined;
  if (!asked)
    throw new ValidationError('invalid body', [{ field: 'conversion', message: 'needs "conversion_rate" in metrics' }]);
  if (conversion.from === conversion.to)
    throw new ValidationError('invalid body', [
      { field: 'conversion', message: 'from and to must be different names' },
    ]);
  if (names && !(names.includes(conversion.from) && names.includes(conversion.to)))
    throw new ValidationError('invalid body', [
      { field: 'name', message: 'must include both names of conversion (or be left out)' },
    ]);
  return { from: conversion.from, to: conversion.to };
}

/** The requested metrics an aggregate answers (every name was checked by the schema). */
function aggregateMetricsOf(metrics: readonly string[]): AggregateMetric[] {
  const out: AggregateMetric[] = [];
  for (const name of metrics) {
    const parsed = parseMetric(name);
    if (parsed && !('error' in parsed)) out.push(parsed);
  }
  return out;
}
