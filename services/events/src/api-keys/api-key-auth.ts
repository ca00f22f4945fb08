import type { Request, RequestHandler, Response } from 'express';
import { UnauthorizedError, asyncHandler } from '@cm/platform';
import type { ApiKeyPrincipal, ApiKeyService } from './api-key-service';

/** Spec 5: the key travels as the `api_key` query parameter. Missing, unknown or revoked: 401. */
export function apiKeyAuth(keys: ApiKeyService): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const principal = await keys.authenticate(req.query.api_key);
    if (!principal) throw new UnauthorizedError('send a valid api_key query parameter');
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
