import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fetchPageTitle, type TitleFetchLimits } from './page-title-fetch';

// a garbage collection on demand: the timeout must survive one (nodejs/node#57736)
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Sends the start of a head and never ends the page (a slow-loris page). */
let pages: http.Server;
let limits: TitleFetchLimits;

beforeAll(async () => {
  pages = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><head><title>Never fin');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const { port } = pages.address() as AddressInfo;
  // long enough for the head to arrive on a loaded machine: the timeout must fire while reading the body
  limits = { timeoutMs: 1000, maxBytes: 4096, maxRedirects: 2, allowLoopback: true, allowedPorts: [port] };
});

afterAll(async () => {
  pages.closeAllConnections();
  await new Promise((resolve) => pages.close(resolve));
});

/**
 * Five fetches of the endless page with collections every 10 ms, and each one's outcome. A timeout
 * lost to the collector never fires: such a fetch is reported as still running after 30 s, a bound
 * on waiting (30 times the fetch's own timeout), not on how fast the timeout fires.
 */
async function fetchWhileCollecting(stop?: AbortSignal): Promise<{ outcomes: string[] }> {
  const { port } = pages.address() as AddressInfo;
  const gcTimer = setInterval(collectGarbage, 10);
  let giveUp: NodeJS.Timeout | undefined;
  const tooLong = new Promise<string>((resolve) => {
    giveUp = setTimeout(() => resolve('still running after 30 s'), 30_000);
  });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        Promise.race([
          fetchPageTitle(`http://127.0.0.1:${port}/slow`, limits, stop).then(
            (title) => `resolved ${title}`,
            (err: Error) => `rejected ${err.message}`,
          ),
          tooLong,
        ]),
      ),
    );
    return { outcomes };
  } finally {
    clearInterval(gcTimer);
    clearTimeout(giveUp);
  }
}

describe('the title fetch timeout', () => {
  test('when a page never ends and the garbage collector runs meanwhile, then every fetch still fails at its timeout', async () => {
    const { outcomes } = await fetchWhileCollecting();
    expect(outcomes).toEqual(Array(5).fill('rejected timed out or stopped'));
  }, 60_000);

  test('when the fetch also has a stop signal, then the timeout still fires under garbage collection', async () => {
    const stop = new AbortController();
    const { outcomes } = await fetchWhileCollecting(stop.signal);
    expect(outcomes).toEqual(Array(5).fill('rejected timed out or stopped'));
    expect(stop.signal.aborted).toBe(false);
  }, 60_000);

  test('when the stop signal fires first, then the fetch ends at once', async () => {
    const { port } = pages.address() as AddressInfo;
    const stop = new AbortController();
    // stopped once the page has started to arrive (the server's own handler has written the head's start by then)
    pages.once('request', () => stop.abort(new Error('stopping')));
    // the page never ends and the fetch's own timeout is 60 s, twice this test's: only the stop can end it in time
    const fetching = fetchPageTitle(`http://127.0.0.1:${port}/slow`, { ...limits, timeoutMs: 60_000 }, stop.signal);
    await expect(fetching).rejects.toThrow('timed out or stopped');
  }, 30_000);
});
