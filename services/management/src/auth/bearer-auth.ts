import type { RequestHandler } from 'express';
import { UnauthorizedError, asyncHandler, bearerToken } from '@cm/platform';
import type { AuthenticatedUser } from './authenticated-user';

export interface TokenResolver {
  findByApiToken(token: string): Promise<AuthenticatedUser | undefined>;
}

/** Every /api/v3/ call: a known api_token or 401. */
export function bearerAuth(users: TokenResolver): RequestHandler {
  return asyncHandler(async (req, _res, next) => {
    const token = bearerToken(req.get('authorization'));
    const user = await users.findByApiToken(token);
    if (!user) throw new UnauthorizedError('unknown api token');
    req.auth = user;
    next();
  });
}
