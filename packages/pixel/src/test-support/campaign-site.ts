import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How a page of the campaign site measures its visitor, chosen per visitor by the `visit` cookie
 * (`<how>.<owner_id>.<content_id>`) so that every way shares the same page addresses:
 * - `snippet`: the minified snippet, `track('impression')` (it sends `url` and `referrer`);
 * - `img-policy`: an `<img>` pixel with `referrerpolicy="no-referrer-when-downgrade"` and no `url`;
 * - `img-url`: an `<img>` pixel whose `url` the server wrote in (the page address it was asked for);
 * - `img-plain`: an `<img>` pixel with neither: the browser's default policy sends only the origin.
 */
export type Measurement = 'snippet' | 'img-policy' | 'img-url' | 'img-plain';

export interface CampaignSite {
  port: number;
  stop(): Promise<void>;
}

const HEAD = '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">';

function cookie(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, value] = part.trim().split('=');
    if (key === name) return value;
  }
  return undefined;
}

function articlePage(req: http.IncomingMessage, events: string): string {
  const [how = 'snippet', owner = '', content = ''] = (cookie(req, 'visit') ?? '').split('.');
  const pixel = `${events}/v1/v.gif?owner_id=${owner}&name=impression&content_id=${content}`;
  const img = (extra: string) => `<img id="pixel" src="${pixel}${extra}" width="1" height="1" alt="">`;
  let body: string;
  if (how === 'img-policy') body = img('" referrerpolicy="no-referrer-when-downgrade');
  else if (how === 'img-url') body = img(`&url=${encodeURIComponent(`http://${req.headers.host}${req.url}`)}`);
  else if (how === 'img-plain') body = img('');
  else
    body = `<script src="/pixel.min.js"></script><script>
window.sent = CampaignEventsPixel.createTracker({ endpoint: ${JSON.stringify(events)}, ownerId: ${JSON.stringify(owner)} })
  .track('impression', { content_id: ${JSON.stringify(content)} });
</script>`;
  return `${HEAD}<title>article</title></head><body><p>an article</p>${body}</body></html>`;
}

/**
 * The publisher's site behind real-looking names (the browser maps them to this one server):
 * `news.example` serves the campaign's pages `/guide` and `/offer` (with and without a trailing
 * slash, any query) and the snippet; `social.example/post` links to the URL in its `to` parameter.
 */
export async function startCampaignSite(bundle: string, events: string): Promise<CampaignSite> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    const html = (body: string) => send(200, 'text/html; charset=utf-8', body);
    if (url.hostname === 'social.example' && url.pathname === '/post') {
      const to = url.searchParams.get('to') ?? '';
      html(
        `${HEAD}<title>post</title></head><body><a id="link" href="${to.replace(/"/g, '&quot;')}">read</a></body></html>`,
      );
    } else if (url.hostname !== 'news.example') send(404, 'text/plain', 'not found');
    else if (url.pathname === '/pixel.min.js') send(200, 'text/javascript; charset=utf-8', bundle);
    else if (/^\/(guide|offer)\/?$/.test(url.pathname)) html(articlePage(req, events));
    else send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
