import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';
import { setRedirectHostsSchema } from './redirect-host-schemas';
import type { RedirectHostService } from './redirect-host-service';

/** The caller's redirect hosts (owners and sub-users alike). Mounted under /api/v3 behind bearer auth. */
export function redirectHostRoutes(redirectHosts: RedirectHostService): Router {
  const router = Router();

  router.get(
    '/redirect-hosts',
    asyncHandler(async (req, res) => {
      res.json(await redirectHosts.get(callerOf(req)));
    }),
  );

  router.put(
    '/redirect-hosts',
    asyncHandler(async (req, res) => {
      const input = validate(setRedirectHostsSchema, req.body, 'redirect hosts', { convert: isFormBody(req) });
      res.json(await redirectHosts.set(callerOf(req), input.hosts));
    }),
  );

  return router;
}
