import express, { type Express, type RequestHandler, type Router } from 'express';
import { errorMiddleware, httpMetrics, metricsRouter, notFoundHandler, requestContext, type Logger, type Registry } from '@cm/platform';

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

/** Assembles the Express app; constructs nothing itself (that is the composition root's job). */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(parts.logger));
  app.use(httpMetrics(parts.metrics));
  app.use(parts.health);
  app.use(metricsRouter(parts.metrics));
  app.use(parts.docs);
  app.use(parts.admin);
  app.use('/api/v3', parts.apiAuth, ...parts.bodyParsers, ...parts.api);
  app.use(notFoundHandler);
  app.use(errorMiddleware(parts.logger));
  return app;
}
