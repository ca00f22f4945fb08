import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from './errors';
import { bearerToken } from './bearer-token';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Operator endpoints: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time. No token configured: always 401. */
export function adminAuth(adminToken: string | undefined): RequestHandler {
  const expected = adminToken ? digest(adminToken) : undefined;
  return (req, _res, next) => {
    const given = digest(bearerToken(req.get('authorization')));
    if (!expected || !timingSafeEqual(given, expected)) {
      next(new UnauthorizedError('operator token required'));
      return;
    }
    next();
  };
}
