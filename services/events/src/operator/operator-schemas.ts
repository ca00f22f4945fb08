import Joi from 'joi';

export interface RetentionRunInput {
  dry_run: boolean;
}

/** The body is optional: an empty POST runs retention for real. */
export const retentionRunSchema = Joi.object<RetentionRunInput>({
  dry_run: Joi.boolean().default(false),
});

export interface RollupRebuildInput {
  from: Date;
  to: Date;
}

/** UTC days, `YYYY-MM-DD`, both inclusive. */
const utcDay = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
  .custom((value: string, helpers) => {
    const d = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value
      ? d
      : helpers.message({ custom: 'must be a real calendar day YYYY-MM-DD (UTC)' });
  });

export const rollupRebuildSchema = Joi.object<RollupRebuildInput>({
  from: utcDay.required(),
  to: utcDay.required(),
});
