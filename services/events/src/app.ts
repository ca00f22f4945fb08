import http from 'node:http';
import type { Express, Router } from 'express';
import { createServiceApp, type Logger, type Registry } from '@cm/platform';
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

/** The Express app for everything except the pixel: the shared service skeleton with the events routers. */
export function createEventsApp(parts: EventsAppParts): Express {
  return createServiceApp({ ...parts, routes: parts.routers });
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
