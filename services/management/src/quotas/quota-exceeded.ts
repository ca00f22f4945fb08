import { ConflictError } from '@cm/platform';

/**
 * A per-account or per-user limit is reached (operations.md section 13): 409 `conflict`, the
 * message naming the quota, the detail naming the field of the request it concerns.
 */
export function quotaExceeded(quota: string, limit: number, field: string): ConflictError {
  return new ConflictError(`quota exceeded: ${quota} (at most ${limit})`, [
    { field, message: `quota exceeded: ${quota} (at most ${limit})` },
  ]);
}
