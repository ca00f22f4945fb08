import Joi from 'joi';
import { ValidationError } from './errors';
import { validate } from './validate';

const schema = Joi.object({ name: Joi.string().required(), reach: Joi.number().integer() });

describe('validate', () => {
  test('when input is valid, then the converted value is returned', () => {
    expect(validate(schema, { name: 'a', reach: 3 })).toEqual({ name: 'a', reach: 3 });
  });

  test('when several fields are wrong, then one ValidationError names each of them', () => {
    try {
      validate(schema, { reach: 'x', extra: 1 }, 'campaign', { convert: false });
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      const fields = (err as ValidationError).details?.map((d) => d.field);
      expect(fields).toEqual(expect.arrayContaining(['name', 'reach', 'extra']));
      expect((err as ValidationError).status).toBe(400);
    }
  });

  test('when conversion is off, then numeric strings are refused; when on, accepted', () => {
    expect(() => validate(schema, { name: 'a', reach: '3' }, 'x', { convert: false })).toThrow(ValidationError);
    expect(validate(schema, { name: 'a', reach: '3' }, 'x', { convert: true })).toEqual({ name: 'a', reach: 3 });
  });

  test('when a $-operator object stands where a string belongs, then it is refused', () => {
    expect(() => validate(schema, { name: { $gt: '' } })).toThrow(ValidationError);
  });
});
