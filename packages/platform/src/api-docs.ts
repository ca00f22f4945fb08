import { readFileSync } from 'node:fs';
import express, { type Router } from 'express';
// the package's index loads the whole 1.5 MB UI bundle into the server; only its location is needed
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { parse } from 'yaml';

/** Reads a service's OpenAPI document (YAML) once at start-up. */
export function loadOpenApiDocument(file: string): Record<string, unknown> {
  return parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

// validatorUrl: null keeps the page from calling the public validator: nothing leaves the machine
const INIT = `window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });`;

/**
 * `/docs`: the API reference rendered by swagger-ui from the package's own files (no CDN), and
 * `/docs/openapi.json`, the document itself.
 */
export function apiDocsRouter(document: Record<string, unknown>): Router {
  const router = express.Router();
  const json = JSON.stringify(document);
  const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
  router.get('/docs', (_req, res) => {
    res.set({
      ...headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    });
    res.send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.set({ ...headers, 'Content-Type': 'application/javascript; charset=utf-8' });
    res.send(INIT);
  });
  router.get('/docs/openapi.json', (_req, res) => {
    res.set({ ...headers, 'Content-Type': 'application/json; charset=utf-8' });
    res.send(json);
  });
  router.use('/docs/assets', express.static(getAbsoluteFSPath(), { index: false, maxAge: '1h' }));
  return router;
}
