import http from 'node:http';
import { consumerSettled, startEventsHarness, waitUntil, type EventsHarness } from '../support/events-harness';

let h: EventsHarness;
let owner: string;

beforeAll(async () => {
  h = await startEventsHarness({
    CONSUMER_BATCH_SIZE: '50',
    CONSUMER_MAX_WAIT_MS: '100',
    CONSUMER_ACK_WAIT_MS: '2000',
  });
  owner = await h.registerOwner();
});
afterAll(async () => {
  await h.stop();
});

/** Keep-alive GETs on one socket each, like a browser or load balancer would send them. */
function hit(agent: http.Agent, port: number, contentId: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      { agent, host: '127.0.0.1', port, path: `/v1/v.gif?owner_id=${owner}&name=impression&content_id=${contentId}` },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
  });
}

describe('graceful stop under load', () => {
  test('when the service is stopped while pixels are being sent, then every acknowledged hit is stored exactly once and nothing else', async () => {
    const port = h.system.port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const acknowledged: string[] = [];
    let sent = 0;
    let stopping = false;
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        const contentId = `w${w}-${i}`;
        sent++;
        const status = await hit(agent, port, contentId);
        if (status === 200) acknowledged.push(contentId);
        else if (stopping) return;
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await waitUntil(() => acknowledged.length >= 200, 15_000, '200 acknowledged hits');
    stopping = true;
    await h.stopSystem();
    await Promise.all(workers);
    agent.destroy();
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    expect(sent).toBeGreaterThan(acknowledged.length);

    await h.restart();
    await waitUntil(
      async () => (await h.storedEvents({ owner_id: owner })).length >= acknowledged.length,
      20_000,
      'every acknowledged hit to be stored',
    );
    // anything published but not acknowledged would show up as an extra document once the consumer has taken the whole stream
    await consumerSettled(h, 20_000);
    const stored = (await h.storedEvents({ owner_id: owner })).map((d) => d.content_id);
    expect(stored.length).toBe(acknowledged.length);
    expect(new Set(stored)).toEqual(new Set(acknowledged));
  }, 60_000);
});
