import type Joi from 'joi';
import { ValidationError } from './errors';

/**
 * Validates with Joi and returns the converted value, or throws a ValidationError naming each
 * offending field. Unknown keys are rejected unless the schema says otherwise.
 */
export function validate<T>(
  schema: Joi.Schema<T>,
  input: unknown,
  what = 'request',
  options: { convert?: boolean } = {},
): T {
  const { value, error } = schema.validate(input, {
    abortEarly: false,
    stripUnknown: false,
    convert: options.convert ?? true,
    errors: { wrap: { label: false } },
  });
  if (error) {
    const details = error.details.map((d) => ({
      field: d.path.length > 0 ? d.path.map(String).join('.') : what,
      message: d.type === 'object.unknown' ? 'is not an allowed field' : d.message,
    }));
    throw new ValidationError(`invalid ${what}`, details);
  }
  return value as T;
}
