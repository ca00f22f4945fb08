import type { Express, RequestHandler, Router } from 'express';
import { createServiceApp, type Logger, type Registry } from '@cm/platform';

export interface AppParts {
  logger: Logger;
  metrics: Registry;
  health: Router;
  /** `/docs`: the API reference. */
  docs: Router;
  /** Runs before every /admin/v1 route: the operator token. */
  adminAuth: RequestHandler;
  /** Operator routers mounted under /admin/v1. */
  admin: Router[];
  /** Run before every /api/v3 route: bearer auth and the per-user limits. */
  apiAuth: RequestHandler[];
  bodyParsers: RequestHandler[];
  /** Feature routers mounted under /api/v3. */
  api: Router[];
  /** Express `trust proxy` (TRUST_PROXY): decides the client address the auth failure limit keys on. */
  trustProxy: boolean | number | string;
}

/** The management app: the shared service skeleton with /admin/v1 behind the operator token and /api/v3 behind bearer auth. */
export function createApp(parts: AppParts): Express {
  const app = createServiceApp({
    ...parts,
    routes: [
      ['/admin/v1', parts.adminAuth, ...parts.bodyParsers, ...parts.admin],
      ['/api/v3', ...parts.apiAuth, ...parts.bodyParsers, ...parts.api],
    ],
  });
  app.set('trust proxy', parts.trustProxy);
  return app;
}
