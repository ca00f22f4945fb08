export type UserRole = 'owner' | 'sub_user';

/** Who is calling, resolved from the Bearer token; every tenant query is scoped by `unique_id`. */
export interface AuthenticatedUser {
  unique_id: string;
  /** The account owner's unique_id (equal to unique_id for the owner). */
  account_id: string;
  role: UserRole;
}

export function callerOf(req: { auth?: AuthenticatedUser }): AuthenticatedUser {
  if (!req.auth) throw new Error('route mounted without bearer auth');
  return req.auth;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthenticatedUser;
    }
  }
}
