import type { RequestHandler } from 'express';
import { UnauthorizedError, addressKey, asyncHandler, bearerToken } from '@cm/platform';
import type { AuthFailureLimit } from '../limits/api-rate-limits';
import type { AuthenticatedUser } from './authenticated-user';

export interface TokenResolver {
  findByApiToken(token: string): Promise<AuthenticatedUser | undefined>;
}

/**
 * Every /api/v3/ call: a known api_token or 401. A client address with too many failures is
 * refused (429) before its token is even looked up, so a 401 storm costs no database work.
 * The client is `req.ip` (Express `trust proxy`, TRUST_PROXY), an IPv6 client by its /64.
 */
export function bearerAuth(users: TokenResolver, failures: AuthFailureLimit): RequestHandler {
  return asyncHandler(async (req, _res, next) => {
    const client = addressKey(req.ip ?? '');
    failures.beforeAuth(client);
    let user: AuthenticatedUser | undefined;
    try {
      user = await users.findByApiToken(bearerToken(req.get('authorization')));
      if (!user) throw new UnauthorizedError('unknown api token');
    } catch (err) {
      if (err instanceof UnauthorizedError) failures.failed(client);
      throw err;
    }
    req.auth = user;
    next();
  });
}
