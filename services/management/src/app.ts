import type { Express, RequestHandler, Router } from 'express';
import { createServiceApp, type Logger, type Registry } from '@cm/platform';

export interface AppParts {
  logger: Logger;
  metrics: Registry;
  health: Router;
  /** `/docs`: the API reference. */
  docs: Router;
  /** Operator routes, each guarded by its own admin auth. */
  admin: Router;
  /** Runs before every /api/v3 route: bearer auth. */
  apiAuth: RequestHandler;
  bodyParsers: RequestHandler[];
  /** Feature routers mounted under /api/v3. */
  api: Router[];
}

/** The management app: the shared service skeleton with the operator routes and /api/v3 behind bearer auth. */
export function createApp(parts: AppParts): Express {
  return createServiceApp({
    ...parts,
    routes: [parts.admin, ['/api/v3', parts.apiAuth, ...parts.bodyParsers, ...parts.api]],
  });
}
