import Joi from 'joi';
import { EVENT_LIMITS, MEASURE_NAMES, type MeasureName, type Measures } from '@cm/contracts';

const MAX = EVENT_LIMITS.measureMax;

/** Plain decimal digits, no leading zero except "0" itself: the one spelling of each number. */
const CANONICAL = /^(?:0|[1-9]\d*)$/;

const digitsOf = (max: number): number => String(max).length;

function measureSchema(name: MeasureName): Joi.StringSchema {
  const max = MAX[name];
  return Joi.string()
    .max(digitsOf(max))
    .pattern(CANONICAL)
    .custom((text: string, helpers) => (Number(text) <= max ? text : helpers.error('any.invalid')));
}

/** The pixel's schema of each measure parameter (a query parameter is text until it is validated). */
export const measureFields: Record<MeasureName, Joi.StringSchema> = {
  engaged_ms: measureSchema('engaged_ms'),
  scroll_depth: measureSchema('scroll_depth'),
  value: measureSchema('value'),
};

export const isMeasureName = (field: string): field is MeasureName =>
  field === 'engaged_ms' || field === 'scroll_depth' || field === 'value';

/** What a refused measure is told, whichever rule refused it (except empty and repeated, which say so). */
export const measureMessage = (name: MeasureName): string =>
  `${name} must be an integer from 0 to ${MAX[name]}, in plain digits`;

const LENGTH: Record<MeasureName, number> = {
  engaged_ms: digitsOf(MAX.engaged_ms),
  scroll_depth: digitsOf(MAX.scroll_depth),
  value: digitsOf(MAX.value),
};

function plainMeasure(v: unknown, name: MeasureName): boolean {
  // the length bound comes first, so no long text is ever scanned
  return (
    typeof v === 'string' && v.length > 0 && v.length <= LENGTH[name] && CANONICAL.test(v) && Number(v) <= MAX[name]
  );
}

/** The hot path's check of the measures (a subset of what measureFields accepts); a hit without them costs three comparisons. */
export function measuresWithinLimits(input: Record<string, unknown>): boolean {
  const { engaged_ms, scroll_depth, value } = input;
  return (
    (engaged_ms === undefined || plainMeasure(engaged_ms, 'engaged_ms')) &&
    (scroll_depth === undefined || plainMeasure(scroll_depth, 'scroll_depth')) &&
    (value === undefined || plainMeasure(value, 'value'))
  );
}

/**
 * The measures of validated input as numbers (exact: at most 10^12), or undefined when the hit
 * carried none, so that the event then has no `measures` at all.
 */
export function measuresOf(input: Record<string, unknown>): Measures | undefined {
  if (input.engaged_ms === undefined && input.scroll_depth === undefined && input.value === undefined) return undefined;
  const measures: Measures = {};
  for (const name of MEASURE_NAMES) {
    const text = input[name];
    if (typeof text === 'string') measures[name] = Number(text);
  }
  return measures;
}
