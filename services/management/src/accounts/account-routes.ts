import { Router } from 'express';
import { asyncHandler, isFormBody, validate } from '@cm/platform';
import { createUserSchema } from '../users/user-schemas';
import type { UserService } from '../users/user-service';

/** Operator bootstrap (there is no public sign-up): POST /admin/v1/accounts creates an account owner. Mounted under /admin/v1. */
export function accountRoutes(users: UserService): Router {
  const router = Router();
  router.post(
    '/accounts',
    asyncHandler(async (req, res) => {
      const input = validate(createUserSchema, req.body, 'account', { convert: isFormBody(req) });
      res.status(201).json(await users.createAccount(input));
    }),
  );
  return router;
}
