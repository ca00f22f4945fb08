import Joi from 'joi';
import { EVENT_LIMITS } from '@cm/contracts';

export interface CreateApiKeyInput {
  owner_ids: string[];
}

/** A key may speak for several owners (an agency); the list is bounded to keep the key document small. */
const MAX_OWNERS_PER_KEY = 1000;

export const createApiKeySchema = Joi.object<CreateApiKeyInput>({
  owner_ids: Joi.array()
    .items(Joi.string().pattern(/^\d+$/, 'digits').max(EVENT_LIMITS.ownerIdMax))
    .min(1)
    .max(MAX_OWNERS_PER_KEY)
    .unique()
    .required(),
});
