import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { noParameters } from '../validation/no-parameters';

/**
 * Operator: `POST /admin/v1/registry/reconcile` runs one reconciliation pass now (it also runs
 * at start and every REGISTRY_RECONCILE_INTERVAL_MS), e.g. after restoring the bucket from a
 * backup. Mounted under /admin/v1 behind the operator token.
 */
export function registryAdminRoutes(reconciler: { run(): Promise<number> }): Router {
  const router = Router();
  router.post(
    '/registry/reconcile',
    asyncHandler(async (req, res) => {
      validate(noParameters, req.body, 'body', { convert: isFormBody(req) });
      res.json({ corrections: await reconciler.run() });
    }),
  );
  return router;
}
