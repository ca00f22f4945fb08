import Joi from 'joi';

export interface RetentionRunInput {
  dry_run: boolean;
}

/** The body is optional: an empty POST runs retention for real. */
export const retentionRunSchema = Joi.object<RetentionRunInput>({
  dry_run: Joi.boolean().default(false),
});
