import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'winston';
import { errorMiddleware, notFoundHandler } from './error-middleware';
import { httpMetrics, metricsRouter, type Registry } from './metrics';
import { noSniff } from './no-sniff';
import { requestContext } from './request-context';

export interface ServiceAppParts {
  logger: Logger;
  metrics: Registry;
  /** /healthz and /readyz. */
  health: Router;
  /** `/docs`: the API reference. */
  docs: Router;
  /** The service's own routes, mounted in order between the operations routes and the 404 handler. */
  routes: (Router | [path: string, ...handlers: RequestHandler[]])[];
}

/**
 * The Express skeleton every service shares: nosniff on every answer, request ids and access log, latency metrics,
 * health, metrics and docs, then the service's routes, then the JSON 404 and the one error
 * middleware. Constructs nothing itself.
 */
export function createServiceApp(parts: ServiceAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(noSniff);
  app.use(requestContext(parts.logger));
  app.use(httpMetrics(parts.metrics));
  app.use(parts.health);
  app.use(metricsRouter(parts.metrics));
  app.use(parts.docs);
  for (const route of parts.routes) {
    if (Array.isArray(route)) {
      const [path, ...handlers] = route;
      app.use(path, ...handlers);
    } else {
      app.use(route);
    }
  }
  app.use(notFoundHandler);
  app.use(errorMiddleware(parts.logger));
  return app;
}
