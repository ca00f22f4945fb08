import { Router, type RequestHandler } from 'express';
import { adminAuth, asyncHandler, isFormBody, validate } from '@cm/platform';
import { createUserSchema } from '../users/user-schemas';
import type { UserService } from '../users/user-service';

/** Operator bootstrap (CONVENTIONS section 3): POST /admin/v1/accounts creates an account owner. */
export function accountRoutes(users: UserService, adminToken: string | undefined, bodyParsers: RequestHandler[]): Router {
  const router = Router();
  router.use('/admin/v1', adminAuth(adminToken), ...bodyParsers);
  router.post('/admin/v1/accounts', asyncHandler(async (req, res) => {
    const input = validate(createUserSchema, req.body, 'account', { convert: isFormBody(req) });
    res.status(201).json(await users.createAccount(input));
  }));
  return router;
}
