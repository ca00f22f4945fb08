import Joi from 'joi';

/** For actions that take no parameters: an empty body (or none) passes, any field is 400. */
export const noParameters = Joi.object({});
