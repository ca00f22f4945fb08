import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PublisherSite {
  /** e.g. http://127.0.0.1:PORT */
  origin: string;
  stop(): Promise<void>;
}

// A tracked link whose target is relative on purpose: trackLinks reads the resolved href.
// The inline script records the window's own properties before the snippet loads, so the test
// can tell which globals the snippet added.
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>publisher</title>
<script>window.__globalsBefore = Object.getOwnPropertyNames(window);</script>
<script src="/pixel.min.js"></script></head>
<body><p id="text">an article</p>
<a id="offer" href="/landing?from=offer" data-track data-content-id="article-3">Offer</a></body></html>`;

// A long article that also loads the opt-in attention build: 4000 px tall, so scroll depth moves
const LONG = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>long read</title>
<style>body { margin: 0 } #body { height: 4000px }</style>
<script>window.__globalsBefore = Object.getOwnPropertyNames(window);</script>
<script src="/pixel.min.js"></script><script src="/pixel-engagement.min.js"></script></head>
<body><div id="body">a long read</div></body></html>`;

const LANDING =
  '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>landing</title></head><body>landed</body></html>';

/**
 * A publisher's site on 127.0.0.1: /article (loads the snippet), /long (the snippet and the
 * attention build), /pixel.min.js, /pixel-engagement.min.js, /landing.
 */
export async function startPublisherSite(bundle: string, engagementBundle = ''): Promise<PublisherSite> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (type: string, body: string) =>
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (path === '/article') send('text/html; charset=utf-8', PAGE);
    else if (path === '/long') send('text/html; charset=utf-8', LONG);
    else if (path === '/pixel-engagement.min.js') send('text/javascript; charset=utf-8', engagementBundle);
    else if (path === '/landing') send('text/html; charset=utf-8', LANDING);
    else if (path === '/pixel.min.js') send('text/javascript; charset=utf-8', bundle);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
