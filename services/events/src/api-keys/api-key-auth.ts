import type { Request, RequestHandler, Response } from 'express';
import { RateLimitedError, UnauthorizedError, asyncHandler, type TokenBuckets } from '@cm/platform';
import { clientKey } from '../ingest/client-address';
import type { ApiKeyPrincipal, ApiKeyService } from './api-key-service';

/**
 * The key travels as the `api_key` query parameter. Missing, unknown or revoked: 401.
 * Failed lookups spend a token of the client (`failures`, keyed by clientKey: the address the
 * trusted proxies appended, an IPv6 client by its /64); once it has none left, keys
 * that are not already known in this process are 429 (Retry-After) without a lookup, so guessing
 * keys cannot load the database. A known key is never slowed by others' failures.
 */
export function apiKeyAuth(
  keys: ApiKeyService,
  failures: TokenBuckets | undefined,
  trustedProxyHops: number,
): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const client = clientKey(req, trustedProxyHops);
    let principal = keys.cached(req.query.api_key);
    if (!principal) {
      const check = failures?.check(client);
      if (check && !check.allowed) throw new RateLimitedError(check.retryAfterSeconds);
      principal = await keys.authenticate(req.query.api_key);
    }
    if (!principal) {
      failures?.tryTake(client);
      throw new UnauthorizedError('send a valid api_key query parameter');
    }
    res.locals.apiKey = principal;
    next();
  });
}

/** The principal apiKeyAuth attached to this request. */
export function apiKeyOf(_req: Request, res: Response): ApiKeyPrincipal {
  const principal = res.locals.apiKey as ApiKeyPrincipal | undefined;
  if (!principal) throw new UnauthorizedError();
  return principal;
}
