import Joi from 'joi';
import { targetGeography } from '../validation/countries';
import { timezone } from '../validation/timezones';

export interface CreateUserInput {
  email: string;
  user_name?: string;
  password: string;
  timezone?: string;
  target_geography?: string[];
}

export type EditUserInput = Partial<Omit<CreateUserInput, 'email'>>;

const password = Joi.string().min(8).max(128);
const userName = Joi.string().trim().max(150).allow('');

export const createUserSchema = Joi.object<CreateUserInput>({
  email: Joi.string().trim().max(254).email({ tlds: false }).required(),
  user_name: userName,
  password: password.required(),
  timezone,
  target_geography: targetGeography,
});

/** Edit takes the create parameters except email; anything else is 400. */
export const editUserSchema = Joi.object<EditUserInput>({
  user_name: userName,
  password,
  timezone,
  target_geography: targetGeography,
});
