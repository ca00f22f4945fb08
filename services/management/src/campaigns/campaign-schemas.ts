import Joi from 'joi';
import { targetGeography } from '../validation/countries';
import { calendarDate } from './calendar-date';

/** The API's campaign categories, exact spelling. */
const CATEGORIES = [
  'Alcohol',
  'Auto',
  'Beauty',
  'Charity',
  'Education',
  'Entertainment',
  'Fashion',
  'Finance',
  'Food / Drink',
  'Health & Fitness',
  'Retail',
  'Technology',
  'Travel & Tourism',
  'Other',
] as const;

/** The API's campaign objectives, exact spelling. */
const OBJECTIVES = [
  'Page Views',
  'Uniques',
  'Social Engagement',
  'Attention',
  'Reach',
  'Combination',
  'Conversion',
  'Brand Lift',
  'Brand Awareness',
] as const;

const NAME_MAX_LENGTH = 200;
const BRAND_MAX_LENGTH = 200;

export interface CampaignFields {
  name: string;
  start_date: string;
  end_date: string;
  category: string;
  /** null: not set. */
  brand: string | null;
  reach: number | null;
  target_geography: string[];
  objective: string | null;
}

export type CreateCampaignInput = Pick<CampaignFields, 'name' | 'start_date' | 'end_date' | 'category'> &
  Partial<CampaignFields>;
export type EditCampaignInput = Partial<CampaignFields>;

/** Trims without failing on surrounding spaces: JSON is validated without conversion, where Joi's trim() would reject. */
const trimmedText = (max: number) =>
  Joi.string()
    .max(max)
    .custom((value: string, helpers) => value.trim() || helpers.error('string.empty'));

const fields = {
  name: trimmedText(NAME_MAX_LENGTH),
  start_date: calendarDate,
  end_date: calendarDate,
  category: Joi.string().valid(...CATEGORIES),
  // Optional fields take null (JSON) or "" (forms cannot send null) to mean "not set", so an edit can clear them.
  brand: trimmedText(BRAND_MAX_LENGTH).allow(null, ''),
  reach: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).allow(null, ''),
  target_geography: targetGeography.allow(null),
  objective: Joi.string()
    .valid(...OBJECTIVES)
    .allow(null, ''),
};

/** Create: four required fields; unknown fields are 400. */
export const createCampaignSchema = Joi.object<CreateCampaignInput>({
  ...fields,
  name: fields.name.required(),
  start_date: fields.start_date.required(),
  end_date: fields.end_date.required(),
  category: fields.category.required(),
}).custom(unsetAsNull);

/**
 * Edit: the same fields and values, any subset. Date order is checked by the service on
 * the merged result, so it is not checked here.
 */
export const editCampaignSchema = Joi.object<EditCampaignInput>(fields).custom(unsetAsNull);

/** One stored form for "not set": null, and [] for the geography list. */
function unsetAsNull(value: Record<string, unknown>) {
  const out = { ...value };
  for (const key of ['brand', 'reach', 'objective']) if (out[key] === '') out[key] = null;
  if (out.target_geography === null) out.target_geography = [];
  return out;
}
