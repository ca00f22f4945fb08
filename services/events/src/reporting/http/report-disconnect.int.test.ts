import http from 'node:http';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// the service's own driver reports every command it sends: how many count aggregations run at once is observed, not mocked
const withCommandMonitoring = (url: string) => `${url}${url.includes('?') ? '&' : '/?'}monitorCommands=true`;
const PER_KEY = 2;
const EVENTS = 20_000;

let h: ReportingHarness;
const owner = newOwnerId();
let apiKey: string;
const running = new Set<number>();
let maxRunning = 0;
let started = 0;
let onStarted: (() => void) | undefined;
let onEnded: (() => void) | undefined;

beforeAll(async () => {
  h = await startReportingHarness({
    MONGO_URL: withCommandMonitoring(process.env.MONGO_URL!),
    REPORT_CONCURRENCY_PER_KEY: String(PER_KEY),
    REPORT_BUCKET_CONCURRENCY: '1',
    REPORT_RATE_LIMIT_PER_MINUTE: '100000',
  });
  apiKey = (await h.createKey([owner])).api_key;
  const created = new Date('2026-11-19T12:00:00Z');
  // enough events in one day bucket that counting them takes the stand-in a while
  for (let i = 0; i < EVENTS; i += 5000) {
    await h.insertEvents(
      Array.from({ length: 5000 }, (_, j) => ({
        owner_id: owner,
        name: 'view',
        url: `https://example.com/${(i + j) % 500}`,
        created,
      })),
    );
  }
  const client = h.db.client;
  const isCount = (e: CommandStartedEvent) => e.commandName === 'aggregate' && e.databaseName === h.config.MONGO_DB;
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (!isCount(e)) return;
    running.add(e.requestId);
    started++;
    maxRunning = Math.max(maxRunning, running.size);
    onStarted?.();
  });
  const ended = (e: CommandSucceededEvent | CommandFailedEvent) => {
    if (running.delete(e.requestId)) onEnded?.();
  };
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
}, 120_000);
afterAll(async () => {
  await h.stop();
});

/** Sends a report and hangs up as soon as its counting started on the database (or it was answered, e.g. 429). */
function reportAndHangUp(body: unknown): Promise<'hung up' | number> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(`${h.baseUrl}/api/v1/events/?api_key=${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    req.on('response', (res) => {
      onStarted = undefined;
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', (err) => (req.destroyed ? resolve('hung up') : reject(err)));
    onStarted = () => {
      onStarted = undefined;
      req.destroy();
      resolve('hung up');
    };
    req.end(payload);
  });
}

describe('a client that hangs up on its reports', () => {
  test('when it sends reports and disconnects at once, again and again, then its key never has more than the per-key limit counting on the database', async () => {
    const body = { owner_id: owner, group_by: 'url', created__gte: '2026-11-19', created__lte: '2026-11-19' };
    const answered = await (
      await fetch(`${h.baseUrl}/api/v1/events/?api_key=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
    expect(answered).toHaveLength(500);
    started = 0;
    maxRunning = 0;

    const outcomes: Array<'hung up' | number> = [];
    while (started < 3 * PER_KEY) {
      const outcome = await reportAndHangUp(body);
      outcomes.push(outcome);
      // refused while the key's slots are busy: try again once a count on the database ended
      if (outcome === 429 && running.size > 0) await new Promise<void>((resolve) => (onEnded = resolve));
      onEnded = undefined;
    }

    expect(maxRunning).toBeLessThanOrEqual(PER_KEY);
    expect(outcomes).toContain(429); // the slots were still held by reports whose client had gone
  }, 120_000);
});
