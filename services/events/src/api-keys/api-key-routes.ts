import { Router, type RequestHandler } from 'express';
import { NotFoundError, adminAuth, asyncHandler, isFormBody, validate } from '@cm/platform';
import { createApiKeySchema } from './api-key-schemas';
import type { ApiKeyService } from './api-key-service';

/** Operator endpoints for reporting API keys, behind ADMIN_TOKEN. */
export function apiKeyRoutes(
  keys: ApiKeyService,
  adminToken: string | undefined,
  bodyParsers: RequestHandler[],
): Router {
  const router = Router();
  router.use('/admin/v1/api-keys', adminAuth(adminToken), ...bodyParsers);

  router.post(
    '/admin/v1/api-keys',
    asyncHandler(async (req, res) => {
      const input = validate(createApiKeySchema, req.body, 'api key', { convert: isFormBody(req) });
      res.status(201).json(await keys.create(input.owner_ids));
    }),
  );

  router.get(
    '/admin/v1/api-keys',
    asyncHandler(async (_req, res) => {
      res.json(await keys.list());
    }),
  );

  router.delete(
    '/admin/v1/api-keys/:id',
    asyncHandler(async (req, res) => {
      await keys.revoke(apiKeyIdOf(req.params.id));
      res.status(204).end();
    }),
  );

  return router;
}

/** Ids are UUIDs; anything else cannot name a key, so it is a 404 like any unknown id. */
function apiKeyIdOf(raw: unknown): string {
  if (typeof raw !== 'string' || !/^[0-9a-f-]{36}$/.test(raw)) throw new NotFoundError('no such API key');
  return raw;
}
