import http from 'node:http';
import type { Express, Router } from 'express';
import { createServiceApp, type Logger, type Registry } from '@cm/platform';

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

const PIXEL_PATH = '/v1/v.gif';

/** True for `/v1/v.gif` with or without a query string: the only path served outside Express. */
function isPixelRequest(url: string | undefined): boolean {
  return (
    url !== undefined &&
    url.startsWith(PIXEL_PATH) &&
    (url.length === PIXEL_PATH.length || url.charCodeAt(PIXEL_PATH.length) === 63) /* ? */
  );
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
