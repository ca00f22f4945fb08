import Joi from 'joi';
import { CONTENT_TYPES } from './content-document';
import { URL_MAX_LENGTH, canonicalContentUrl, normalizeContentUrl } from './content-url';

export interface AddContentInput {
  /** Normalised by the schema; it has a canonical form (canonicalContentUrl). */
  url: string;
  content_type?: string | null;
}

export interface EditContentInput {
  content_type: string;
}

const contentType = Joi.string().valid(...CONTENT_TYPES);

const url = Joi.string()
  .max(URL_MAX_LENGTH)
  .custom((value: string, helpers) => {
    const normalized = normalizeContentUrl(value);
    if (normalized === undefined) return helpers.error('any.invalid');
    return canonicalContentUrl(normalized) === undefined ? helpers.error('url.canonical') : normalized;
  })
  .messages({
    'any.invalid': '{{#label}} must be an absolute http or https URL without credentials',
    'url.canonical': `{{#label}} must be at most ${URL_MAX_LENGTH} characters once canonical`,
  });

/** Add content: url required; content_type optional (null or "" = not set). */
export const addContentSchema = Joi.object<AddContentInput>({
  url: url.required(),
  content_type: contentType.allow(null, ''),
}).custom((value: AddContentInput) => ({ ...value, content_type: value.content_type || null }));

/** Edit content: content_type is the only parameter, and required. */
export const editContentSchema = Joi.object<EditContentInput>({
  content_type: contentType.required(),
});
