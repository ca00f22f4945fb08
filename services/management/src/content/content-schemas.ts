import Joi from 'joi';
import { CONTENT_TYPES } from './content-document';
import { URL_MAX_LENGTH, normalizeContentUrl } from './content-url';

export interface AddContentInput {
  /** Normalised by the schema. */
  url: string;
  content_type?: string | null;
}

export interface EditContentInput {
  content_type: string;
}

const contentType = Joi.string().valid(...CONTENT_TYPES);

const url = Joi.string()
  .max(URL_MAX_LENGTH)
  .custom((value: string, helpers) => normalizeContentUrl(value) ?? helpers.error('any.invalid'))
  .messages({ 'any.invalid': '{{#label}} must be an absolute http or https URL without credentials' });

/** Add content: url required; content_type optional (null or "" = not set). */
export const addContentSchema = Joi.object<AddContentInput>({
  url: url.required(),
  content_type: contentType.allow(null, ''),
}).custom((value: AddContentInput) => ({ ...value, content_type: value.content_type || null }));

/** Edit content: content_type is the only parameter, and required. */
export const editContentSchema = Joi.object<EditContentInput>({
  content_type: contentType.required(),
});
