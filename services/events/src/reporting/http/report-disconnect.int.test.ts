import http from 'node:http';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { MongoReplyGate } from '../../../test/support/mongo-reply-gate';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

const PER_KEY = 2;
const EVENTS = 5_000;

let h: ReportingHarness;
// the database's replies to the reports' aggregations are held here, so a count "runs" exactly as long as the test says
let gate: MongoReplyGate;
let holding = false;
const owner = newOwnerId();
let apiKey: string;
const running = new Set<number>();
let maxRunning = 0;
let onStarted: (() => void) | undefined;
let onEnded: (() => void) | undefined;

beforeAll(async () => {
  const mongo = new URL(process.env.MONGO_URL!);
  gate = await MongoReplyGate.start({ host: mongo.hostname, port: Number(mongo.port || 27017) });
  // the service's own driver reports every command it sends: how many aggregations run at once is observed, not mocked
  const monitored = new URL(gate.urlFor(process.env.MONGO_URL!));
  monitored.searchParams.set('monitorCommands', 'true');
  h = await startReportingHarness({
    MONGO_URL: monitored.toString(),
    REPORT_CONCURRENCY_PER_KEY: String(PER_KEY),
    REPORT_BUCKET_CONCURRENCY: '1',
    REPORT_RATE_LIMIT_PER_MINUTE: '100000',
  });
  apiKey = (await h.createKey([owner])).api_key;
  const created = new Date('2026-11-19T12:00:00Z');
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
    if (holding) gate.hold(e.requestId);
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
  gate.releaseAll();
  await h.stop();
  await gate.stop();
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

/** Reports holding a slot of the key, as the service's own gauge says. */
async function reportsInFlight(): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => /^events_reports_in_flight[{ ]/.test(l));
  if (line === undefined) throw new Error('no events_reports_in_flight gauge');
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Resolves once the service released every slot: the abandoned reports' work settled after their queries ended. */
async function slotsFree(): Promise<void> {
  while ((await reportsInFlight()) > 0) await new Promise(setImmediate);
}

/** Resolves once no aggregation of the reports is running on the database. */
function countsEnded(): Promise<void> {
  if (running.size === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    onEnded = () => {
      if (running.size > 0) return;
      onEnded = undefined;
      resolve();
    };
  });
}

describe('a client that hangs up on its reports', () => {
  test('when it sends reports and disconnects while their counts still run, then its key gets 429 until the database finished them, never more than the per-key limit at once', async () => {
    const body = { owner_id: owner, group_by: 'url', created__gte: '2026-11-19', created__lte: '2026-11-19' };
    const answered = await (
      await fetch(`${h.baseUrl}/api/v1/events/?api_key=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
    expect(answered).toHaveLength(500);
    // the answer may reach the client before the service released the slot
    await slotsFree();
    maxRunning = 0;

    holding = true;
    const hungUp = [];
    for (let i = 0; i < PER_KEY; i++) hungUp.push(await reportAndHangUp(body));
    expect(hungUp).toEqual(Array(PER_KEY).fill('hung up'));
    expect(running.size).toBe(PER_KEY);
    expect(await reportsInFlight()).toBe(PER_KEY);

    // the clients are gone, their counts are not: the key's slots are still taken
    expect(await reportAndHangUp(body)).toBe(429);
    expect(await reportAndHangUp(body)).toBe(429);

    holding = false;
    const ended = countsEnded();
    gate.releaseAll();
    await ended;
    // the queries ended on the database; the service frees a slot once the report's own work after them settled
    await slotsFree();

    // the database finished the abandoned counts: the slots are free again
    expect(await reportAndHangUp(body)).toBe('hung up');
    expect(maxRunning).toBeLessThanOrEqual(PER_KEY);
  }, 120_000);

  test('when it sends more reports than its per-key limit one after another, then every one is answered: a slot is free once its answer is ready', async () => {
    await slotsFree();
    const body = { owner_id: owner, created__gte: '2026-11-19', created__lte: '2026-11-19' };
    const statuses: number[] = [];
    for (let i = 0; i < PER_KEY * 5; i++) {
      const res = await fetch(`${h.baseUrl}/api/v1/events/?api_key=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(PER_KEY * 5).fill(200));
  });
});
