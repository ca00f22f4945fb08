import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { noParameters } from '../validation/no-parameters';
import type { RekeyResult } from './token-rekey';

/**
 * Operator: `POST /admin/v1/tokens/rekey` brings every stored token to the current keys now (the
 * same pass runs at every start) and says how many are left, e.g. before an old key is removed.
 * Mounted under /admin/v1 behind the operator token.
 */
export function tokenAdminRoutes(rekey: { run(): Promise<RekeyResult> }): Router {
  const router = Router();
  router.post(
    '/tokens/rekey',
    asyncHandler(async (req, res) => {
      validate(noParameters, req.body, 'body', { convert: isFormBody(req) });
      res.json(await rekey.run());
    }),
  );
  return router;
}
