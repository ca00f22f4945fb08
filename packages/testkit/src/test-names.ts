import { randomBytes } from 'node:crypto';

/** A name unique to one test file, so parallel workers never share a database or stream. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}
