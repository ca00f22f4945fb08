import { Router, type RequestHandler } from 'express';
import { NotFoundError, asyncHandler, isFormBody, validate } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';
import { pageQuerySchema } from '../pagination/page-query';
import { noParameters } from '../validation/no-parameters';
import { createUserSchema, editUserSchema } from './user-schemas';
import type { UserService } from './user-service';

/**
 * List, create, read and edit users, the caller's own user, and token rotation. Mounted under /api/v3 behind bearer auth. Creating and editing
 * users (scrypt) and rotating tokens also take from the tighter `expensive` rate limit.
 */
export function userRoutes(users: UserService, expensive: RequestHandler): Router {
  const router = Router();

  router.get(
    '/user',
    asyncHandler(async (req, res) => {
      const page = validate(pageQuerySchema, req.query, 'query');
      res.json(
        page.limit === undefined
          ? await users.listSubUsers(callerOf(req))
          : await users.listSubUsersPage(callerOf(req), page.limit, page.cursor),
      );
    }),
  );

  // before '/user/:userId' routes could ever take a GET: "me" is not a unique_id
  router.get(
    '/user/me',
    asyncHandler(async (req, res) => {
      validate(noParameters, req.query, 'query');
      res.json(await users.ownUser(callerOf(req)));
    }),
  );

  router.post(
    '/user',
    expensive,
    asyncHandler(async (req, res) => {
      const input = validate(createUserSchema, req.body, 'user', { convert: isFormBody(req) });
      res.status(200).json(await users.createSubUser(callerOf(req), input));
    }),
  );

  router.post(
    '/user/:userId',
    expensive,
    asyncHandler(async (req, res) => {
      const userId = userIdOf(req.params.userId);
      const input = validate(editUserSchema, req.body, 'user', { convert: isFormBody(req) });
      res.status(201).json(await users.editUser(callerOf(req), userId, input));
    }),
  );

  router.post(
    '/user/:userId/token',
    expensive,
    asyncHandler(async (req, res) => {
      const userId = userIdOf(req.params.userId);
      validate(noParameters, req.body, 'body', { convert: isFormBody(req) });
      res.status(200).json(await users.rotateToken(callerOf(req), userId));
    }),
  );

  router.delete(
    '/user/:userId',
    asyncHandler(async (req, res) => {
      const userId = userIdOf(req.params.userId);
      await users.deleteUser(callerOf(req), userId);
      res.status(204).end();
    }),
  );

  return router;
}

/** unique_ids are digits; anything else cannot name a user, so it is a 404 like any unknown id. */
function userIdOf(raw: unknown): string {
  if (typeof raw !== 'string' || !/^\d{1,32}$/.test(raw)) throw new NotFoundError('no such user');
  return raw;
}
