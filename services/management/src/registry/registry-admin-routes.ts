import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { noParameters } from '../validation/no-parameters';

interface Reconciler {
  run(): Promise<number>;
}

/**
 * Operator: `POST /admin/v1/registry/reconcile` runs one reconciliation pass of each registry now
 * (they also run at start and every REGISTRY_RECONCILE_INTERVAL_MS), e.g. after restoring or
 * losing a bucket. Answers how many keys each corrected. Mounted under /admin/v1 behind the
 * operator token.
 */
export function registryAdminRoutes(reconcilers: { owners: Reconciler; campaigns: Reconciler }): Router {
  const router = Router();
  router.post(
    '/registry/reconcile',
    asyncHandler(async (req, res) => {
      validate(noParameters, req.body, 'body', { convert: isFormBody(req) });
      const [owners, campaigns] = await Promise.all([reconcilers.owners.run(), reconcilers.campaigns.run()]);
      res.json({ corrections: owners, campaign_corrections: campaigns });
    }),
  );
  return router;
}
