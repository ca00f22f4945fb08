import http from 'node:http';
import express, { type Express, type Router } from 'express';
import { errorMiddleware, httpMetrics, metricsRouter, notFoundHandler, requestContext, type Logger, type Registry } from '@cm/platform';
import { isPixelRequest } from './ingest/pixel-handler';

export interface EventsAppParts {
  logger: Logger;
  metrics: Registry;
  health: Router;
  /** `/docs`: the API reference. */
  docs: Router;
  /** Routers of the features this process runs (reporting, API keys). */
  routers: Router[];
}

/** The Express app for everything except the pixel; constructs nothing itself. */
export function createEventsApp(parts: EventsAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(parts.logger));
  app.use(httpMetrics(parts.metrics));
  app.use(parts.health);
  app.use(metricsRouter(parts.metrics));
  app.use(parts.docs);
  for (const router of parts.routers) app.use(router);
  app.use(notFoundHandler);
  app.use(errorMiddleware(parts.logger));
  return app;
}

/**
 * One listener for {events_url}: the pixel goes straight to its node:http handler (no Express
 * on the hot path), every other request to the Express app. Without the ingest role the pixel
 * path is just another unknown route (404).
 */
export function frontDoor(pixel: http.RequestListener | undefined, app: Express): http.RequestListener {
  if (!pixel) return app;
  return (req, res) => {
    if (isPixelRequest(req.url)) pixel(req, res);
    else app(req, res);
  };
}
