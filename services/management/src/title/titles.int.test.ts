import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { startManagementHarness, type ManagementHarness } from '../../test/support/management-harness';

/** Pages served on 127.0.0.1; the title fetcher may reach them only with TITLE_FETCH_ALLOW_LOOPBACK. */
const hits: Record<string, number> = {};
const closedEarly = new Set<string>();
let pages: http.Server;
let base = '';
/** A second page server on a port the fetcher is not allowed to use. */
let otherPort: http.Server;
let otherBase = '';
let otherHits = 0;
/** /held sends the start of its head, then waits for the test to release the rest. */
let releaseHeld: () => void = () => undefined;
const heldReleased = new Promise<void>((resolve) => (releaseHeld = resolve));
let slowOnceServed = false;
/** Resolves when /slow-once has sent its first, unfinished answer. */
let markSlowOnceServed: () => void = () => undefined;
const slowOnceStarted = new Promise<void>((resolve) => (markSlowOnceServed = resolve));

function html(res: http.ServerResponse, body: string) {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

async function servePage(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = req.url ?? '/';
  hits[path] = (hits[path] ?? 0) + 1;
  res.on('close', () => {
    if (!res.writableFinished) closedEarly.add(path);
  });
  const redirect = (to: string): void => void res.writeHead(302, { location: to }).end();
  switch (path) {
    case '/plain':
      return html(res, '<html><head><title> Plain &amp; Simple </title></head><body>x</body></html>');
    case '/og':
      return html(
        res,
        '<html><head><meta property="og:title" content="Open &quot;Graph&quot;"></head><body></body></html>',
      );
    case '/redirect':
      return redirect('/plain');
    case '/redirect-localhost':
      return redirect(`http://localhost:${(pages.address() as AddressInfo).port}/og`);
    case '/redirect-unspecified':
      return redirect(`http://0.0.0.0:${(pages.address() as AddressInfo).port}/plain`);
    case '/redirect-other-port':
      return redirect(`${otherBase}/plain`);
    case '/loop1':
      return redirect('/loop2');
    case '/loop2':
      return redirect('/loop3');
    case '/loop3':
      return redirect('/plain');
    case '/image':
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100));
    case '/error':
      return void res.writeHead(500).end('boom');
    case '/big': {
      // The title sits after 32 MB of head padding (more than socket buffers hold), far beyond TITLE_FETCH_MAX_BYTES.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><!--');
      const padding = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 2048 && !res.destroyed; i++) {
        if (!res.write(padding)) await drainedOrClosed(res);
      }
      return void res.end('--><title>Too Late</title></head></html>');
    }
    case '/slow':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.write('<html><head><title>Never fin'); // and never ends
    case '/held':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Held');
      await heldReleased;
      return void res.end(' Until Released</title></head></html>');
    case '/slow-once':
      if (!slowOnceServed) {
        slowOnceServed = true;
        markSlowOnceServed();
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.write('<html><he');
      }
      return html(res, '<title>Second Try</title>');
    default:
      return void res.writeHead(404).end();
  }
}

let h: ManagementHarness;
let mongo: MongoClient;

/** The page server's port is allowed (besides 80 and 443) once it is known. */
let LIMITS: Record<string, string> = {};

async function listenOnLoopback(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  pages = http.createServer((req, res) => void servePage(req, res));
  base = await listenOnLoopback(pages);
  otherPort = http.createServer((_req, res) => {
    otherHits++;
    html(res, '<title>Other Port</title>');
  });
  otherBase = await listenOnLoopback(otherPort);
  LIMITS = {
    // the longest allowed: no fetch here gives up by the clock unless a test says so (and then
    // the page never ends), so a busy machine cannot turn a title into a timeout
    TITLE_FETCH_TIMEOUT_MS: '60000',
    TITLE_FETCH_MAX_BYTES: '4096',
    TITLE_FETCH_MAX_REDIRECTS: '2',
    TITLE_FETCH_ALLOWED_PORTS: `80,443,${new URL(base).port}`,
  };
  h = await startManagementHarness({ ...LIMITS, TITLE_FETCH_ALLOW_LOOPBACK: 'true' });
  mongo = await MongoClient.connect(process.env.MONGO_URL!);
});
afterAll(async () => {
  await h.stop();
  await mongo.close();
  for (const server of [pages, otherPort]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function campaignOf(harness: ManagementHarness, apiToken: string): Promise<string> {
  const res = await harness.request('POST', '/api/v3/campaign/', {
    token: apiToken,
    body: { name: 'T', start_date: '2024-01-01', end_date: '2030-12-31', category: 'Other' },
  });
  return res.body.token;
}

/** Waits (bounded) until the item's fetch has finished one way or the other; returns its stored title and state. */
async function settled(
  harness: ManagementHarness,
  campaignToken: string,
  token: string,
  ms = 20_000,
): Promise<{ title: string; title_state: string }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const doc = await mongo
      .db(harness.config.MONGO_DB)
      .collection('campaigns')
      .findOne({ _id: campaignToken } as never);
    const item = doc?.content.find((c: { token: string }) => c.token === token);
    if (item && item.title_state !== 'pending') return item;
    if (Date.now() > deadline) throw new Error(`title still pending after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function addAndSettle(harness: ManagementHarness, url: string, whenAdded?: () => void) {
  const owner = await harness.createAccount();
  const c = await campaignOf(harness, owner.api_token);
  const added = await harness.request('POST', `/api/v3/campaign/${c}/content/`, {
    token: owner.api_token,
    body: { url },
  });
  expect(added.status).toBe(200);
  expect(added.body.title).toBe('');
  whenAdded?.();
  const stored = await settled(harness, c, added.body.token);
  const read = await harness.request('GET', `/api/v3/campaign/${c}/`, { token: owner.api_token });
  return { stored, title: read.body.content[0].title as string };
}

describe('title fetching (loopback allowed for tests)', () => {
  test('when a page has a <title>, then the item gets it in the background', async () => {
    const { title, stored } = await addAndSettle(h, `${base}/plain`);
    expect(title).toBe('Plain & Simple');
    expect(stored.title_state).toBe('done');
  });

  test('when a page has only og:title, then that is the title', async () => {
    expect((await addAndSettle(h, `${base}/og`)).title).toBe('Open "Graph"');
  });

  test('when a page redirects within the limit, then the final page gives the title', async () => {
    expect((await addAndSettle(h, `${base}/redirect`)).title).toBe('Plain & Simple');
    expect((await addAndSettle(h, `${base}/loop2`)).title).toBe('Plain & Simple'); // 2 redirects: at the limit
  });

  test('when a redirect names a host, then it is resolved through the guarded lookup and allowed for loopback', async () => {
    expect((await addAndSettle(h, `${base}/redirect-localhost`)).title).toBe('Open "Graph"');
  });

  test('when a redirect points to the unspecified address 0.0.0.0, then it is refused and the title stays ""', async () => {
    const before = hits['/plain'] ?? 0;
    const { title, stored } = await addAndSettle(h, `${base}/redirect-unspecified`);
    expect(title).toBe('');
    expect(stored.title_state).toBe('failed');
    expect(hits['/plain'] ?? 0).toBe(before);
  });

  test('when there are more redirects than allowed, then the title stays ""', async () => {
    const before = hits['/plain'] ?? 0;
    const { title, stored } = await addAndSettle(h, `${base}/loop1`); // 3 redirects, limit 2
    expect(title).toBe('');
    expect(stored.title_state).toBe('failed');
    expect(hits['/plain'] ?? 0).toBe(before);
  });

  test('when the page is not HTML or answers an error, then the title stays ""', async () => {
    expect((await addAndSettle(h, `${base}/image`)).title).toBe('');
    const failed = await addAndSettle(h, `${base}/error`);
    expect(failed.title).toBe('');
    expect(failed.stored.title_state).toBe('failed');
  });

  test('when the title lies beyond the byte limit, then reading stops early and the title stays ""', async () => {
    const { title } = await addAndSettle(h, `${base}/big`);
    expect(title).toBe('');
    expect(closedEarly.has('/big')).toBe(true);
  });

  test('when the page has not finished, then add content answers without waiting for it, and the title comes once the page does', async () => {
    // the page is released only after add content has answered: an answer that waited for the
    // title would never come (the fetch itself may wait 60 s)
    const { title, stored } = await addAndSettle(h, `${base}/held`, releaseHeld);
    expect(title).toBe('Held Until Released');
    expect(stored.title_state).toBe('done');
  });

  test('when the page never finishes, then the fetch gives up after TITLE_FETCH_TIMEOUT_MS and the title stays ""', async () => {
    const quick = await startManagementHarness({
      ...LIMITS,
      TITLE_FETCH_TIMEOUT_MS: '1000',
      TITLE_FETCH_ALLOW_LOOPBACK: 'true',
    });
    try {
      const { title, stored } = await addAndSettle(quick, `${base}/slow`);
      expect(title).toBe('');
      expect(stored.title_state).toBe('failed');
      expect(closedEarly.has('/slow')).toBe(true);
    } finally {
      await quick.stop();
    }
  });
});

describe('title fetching and ports', () => {
  test('when a URL names a port that is not allowed, then nothing is fetched and the title stays ""', async () => {
    const { title, stored } = await addAndSettle(h, `${otherBase}/plain`);
    expect(title).toBe('');
    expect(stored.title_state).toBe('failed');
    expect(otherHits).toBe(0);
  });

  test('when a redirect leads to a port that is not allowed, then it is not followed', async () => {
    const { title, stored } = await addAndSettle(h, `${base}/redirect-other-port`);
    expect(title).toBe('');
    expect(stored.title_state).toBe('failed');
    expect(otherHits).toBe(0);
  });

  test('when the default ports apply (80 and 443 only), then a loopback page on another port is not fetched either', async () => {
    const defaults = await startManagementHarness({
      TITLE_FETCH_TIMEOUT_MS: LIMITS.TITLE_FETCH_TIMEOUT_MS!,
      TITLE_FETCH_ALLOW_LOOPBACK: 'true',
    });
    try {
      const before = hits['/plain'] ?? 0;
      const { title, stored } = await addAndSettle(defaults, `${base}/plain`);
      expect(title).toBe('');
      expect(stored.title_state).toBe('failed');
      expect(hits['/plain'] ?? 0).toBe(before);
    } finally {
      await defaults.stop();
    }
  });
});

describe('title fetching with the production address policy', () => {
  test('when a URL points to loopback by address or by name, then nothing is fetched and the title stays ""', async () => {
    const strict = await startManagementHarness(LIMITS);
    try {
      const before = hits['/plain'] ?? 0;
      const port = new URL(base).port;
      for (const url of [
        `${base}/plain`,
        `http://localhost:${port}/plain`,
        `http://[::1]:${port}/plain`,
        `http://[::7f00:1]:${port}/plain`,
        `http://[::127.0.0.1]:${port}/plain`,
      ]) {
        const { title, stored } = await addAndSettle(strict, url);
        expect(title).toBe('');
        expect(stored.title_state).toBe('failed');
      }
      expect(hits['/plain'] ?? 0).toBe(before);
    } finally {
      await strict.stop();
    }
  });
});

describe('stop and restart', () => {
  test('when the service stops during a fetch, then stop does not wait for the page, the title stays pending and the next start fetches it', async () => {
    // the page never ends and the fetch would wait 60 s for it: a stop that waited would outlast the test
    const env = { ...LIMITS, TITLE_FETCH_ALLOW_LOOPBACK: 'true' };
    const first = await startManagementHarness(env);
    const owner = await first.createAccount();
    const c = await campaignOf(first, owner.api_token);
    const added = (
      await first.request('POST', `/api/v3/campaign/${c}/content/`, {
        token: owner.api_token,
        body: { url: `${base}/slow-once` },
      })
    ).body;
    await slowOnceStarted;
    await first.stop();
    const doc = await mongo
      .db(first.config.MONGO_DB)
      .collection('campaigns')
      .findOne({ _id: c } as never);
    expect(doc?.content[0].title_state).toBe('pending');

    const second = await startManagementHarness({
      ...env,
      MONGO_DB: first.config.MONGO_DB,
      OWNER_REGISTRY_BUCKET: first.config.OWNER_REGISTRY_BUCKET,
    });
    try {
      expect(await settled(second, c, added.token)).toMatchObject({ title: 'Second Try', title_state: 'done' });
    } finally {
      await second.stop();
    }
  });
});

/** The response's next drain or its close, whichever comes first, leaving no listener behind (2,048 waits on one response). */
function drainedOrClosed(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
