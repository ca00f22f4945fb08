import { UnauthorizedError } from './errors';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,256})$/;

/** Extracts the token of `Authorization: Bearer <token>`, or throws 401. */
export function bearerToken(header: string | undefined): string {
  const match = header ? BEARER.exec(header.trim()) : null;
  if (!match?.[1]) throw new UnauthorizedError('send Authorization: Bearer <api_token>');
  return match[1];
}
