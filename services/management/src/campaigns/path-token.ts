import { NotFoundError } from '@cm/platform';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** Campaign and content tokens are base64url; anything else cannot name a resource, so it is a 404 like any unknown token. */
export function pathToken(raw: unknown, what: 'campaign' | 'content'): string {
  if (typeof raw !== 'string' || !TOKEN_SHAPE.test(raw)) throw new NotFoundError(`no such ${what}`);
  return raw;
}
