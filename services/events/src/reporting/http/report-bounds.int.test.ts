import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { ensureIndexes } from '@cm/platform';
import { startMongoStandIn, type LocalServer } from '@cm/testkit';
import { BUCKET_INDEXES } from '../../storage/bucket-indexes';
import { bucketName } from '../../storage/bucket-naming';
import type { EventDocument } from '../../storage/event-document';
import { waitUntil } from '../../../test/support/events-harness';
import { MongoReplyGate } from '../../../test/support/mongo-reply-gate';
import { newOwnerId, startReportingHarness, type ReportingHarness } from '../../../test/support/reporting-harness';

// A report over an owner flooded with 500,000 distinct urls is refused by its group cap, with
// bounded memory and a clear error, instead of loading every group. Nothing here measures time:
// "still running" is a database reply held back by the test (MongoReplyGate), and the deadline is
// shown by a report whose query cannot return before the deadline passes.
const URLS = 500_000;
const DAY = Date.parse('2026-10-15T00:00:00Z');
const range = { created__gte: '2026-10-15 00:00:00', created__lte: '2026-10-15 23:59:59' };
/** How long a test waits for a 500,000-group aggregation: a bound on waiting, not on speed (38 s measured on 2 cores under four busy processes). */
const FLOOD_WAIT_MS = 240_000;

/** The run's shared stand-in computes on one thread per query: 500,000 groups would keep it from answering other test files. */
let ownStandIn: LocalServer | undefined;
/** `h` and `tight` reach MongoDB through it, so a test decides when a report's query "ends". */
let gate: MongoReplyGate;
/** Reports with a deadline far above what any machine needs: what they show is the group cap, never the clock. */
let h: ReportingHarness;
/** The same settings and database without the gate: the memory measured is the service's, not the proxy's. */
let direct: ReportingHarness;
/** The same database, a process whose reports have 300 ms. Started before the flood is written: once the stand-in is busy with 500,000 groups, new connections wait. */
let tight: ReportingHarness;
const TIGHT_DEADLINE_MS = 300;
let owner: string;
/** A key of its own per test: a key's slot is free only once its last report's queries settled, after the answer. */
const newKey = async () => (await h.createKey([owner])).api_key;

/** The aggregations (a report's counting) each harness sent to its database, as the driver reports them. */
interface Aggregations {
  started: number[];
  settled: Set<number>;
  /** Called with each new aggregation's request id before its reply can arrive: `gate.hold(id)` keeps it running. */
  onStart?: (requestId: number) => void;
}
const aggregationsOf = new Map<ReportingHarness, Aggregations>();

function watchAggregations(harness: ReportingHarness): Aggregations {
  const seen: Aggregations = { started: [], settled: new Set() };
  const mine = (e: CommandStartedEvent) => e.commandName === 'aggregate' && e.databaseName === harness.config.MONGO_DB;
  harness.db.client.on('commandStarted', (e: CommandStartedEvent) => {
    if (!mine(e)) return;
    seen.started.push(e.requestId);
    seen.onStart?.(e.requestId);
  });
  const settled = (e: CommandSucceededEvent | CommandFailedEvent) => {
    if (seen.started.includes(e.requestId)) seen.settled.add(e.requestId);
  };
  harness.db.client.on('commandSucceeded', settled);
  harness.db.client.on('commandFailed', settled);
  aggregationsOf.set(harness, seen);
  return seen;
}

/** Resolves with the request id of the next aggregation `harness` sends, whose reply is held until `gate.releaseAll()`. */
function holdNextAggregation(harness: ReportingHarness): Promise<number> {
  const seen = aggregationsOf.get(harness)!;
  return new Promise((resolve) => {
    seen.onStart = (requestId) => {
      seen.onStart = undefined;
      gate.hold(requestId);
      resolve(requestId);
    };
  });
}

/** The service's own driver reports every command it sends (monitorCommands), through the gate. */
function throughGate(mongoUrl: string): string {
  const url = new URL(gate.urlFor(mongoUrl));
  url.searchParams.set('monitorCommands', 'true');
  return url.toString();
}

beforeAll(async () => {
  if (process.env.TEST_SERVERS_SOURCE === 'local') ownStandIn = await startMongoStandIn({ heap: '2g' });
  const mongoUrl = ownStandIn?.url ?? process.env.MONGO_URL!;
  const target = new URL(mongoUrl);
  gate = await MongoReplyGate.start({ host: target.hostname, port: Number(target.port || 27017) });
  const settings = {
    REPORT_CONCURRENCY_PER_KEY: '1',
    // the tests poll a key until it is free: only its concurrency may refuse them
    REPORT_RATE_LIMIT_PER_MINUTE: '100000',
    // the largest deadline allowed, per query too: a slow machine must still reach the group cap
    REPORT_DEADLINE_MS: '600000',
    REPORT_QUERY_TIMEOUT_MS: '600000',
    REPORT_MAX_RANKED_GROUPS: '50000',
  };
  h = await startReportingHarness({ ...settings, MONGO_URL: throughGate(mongoUrl) });
  direct = await startReportingHarness({ ...settings, MONGO_URL: mongoUrl, MONGO_DB: h.config.MONGO_DB });
  tight = await startReportingHarness({
    MONGO_URL: throughGate(mongoUrl),
    MONGO_DB: h.config.MONGO_DB,
    REPORT_DEADLINE_MS: String(TIGHT_DEADLINE_MS),
    REPORT_MAX_GROUPS: '1000000',
  });
  watchAggregations(h);
  watchAggregations(tight);
  owner = newOwnerId();
  const bucket = h.db.collection<EventDocument>(bucketName(h.config.BUCKET_PREFIX, new Date(DAY)));
  await ensureIndexes(bucket, BUCKET_INDEXES);
  for (let i = 0; i < URLS; i += 25_000) {
    const docs = Array.from({ length: 25_000 }, (_, j) => ({
      _id: `flood-${i + j}`,
      owner_id: owner,
      name: 'impression',
      url: `https://flood.example/${i + j}`,
      content_id: '',
      device_type: 'desktop' as const,
      bot: false,
      metadata: {},
      created: new Date(DAY + ((i + j) % 86_400) * 1000),
    }));
    await bucket.insertMany(docs, { ordered: false });
  }
}, FLOOD_WAIT_MS);
afterAll(async () => {
  gate?.releaseAll();
  await tight?.stopServerOnly();
  await direct?.stopServerOnly();
  await h?.stop();
  await gate?.stop();
  await ownStandIn?.stop();
});

/** Peak RSS growth while `run` is in flight, sampled every 20 ms. */
async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

const oneUrl = { url: 'https://flood.example/1', ...range };

describe('bounded reports', () => {
  test(
    'when an owner with 500,000 distinct urls is grouped by url, then a 400 names the cap and suggests limit, without loading every group',
    async () => {
      const key = await newKey();
      const { result: res, growthMb } = await peakRssGrowth(() =>
        direct.report(key, { owner_id: owner, group_by: 'url', ...range }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details[0].field).toBe('group_by');
      expect(res.body.error.details[0].message).toMatch(/more than 10000 groups.*`limit`/);
      // 500,000 groups as JavaScript objects would be several hundred MB; the cap keeps it to a few batches
      expect(growthMb).toBeLessThan(150);
    },
    FLOOD_WAIT_MS,
  );

  test(
    'when the same owner asks for the top 10 urls, then the ranking cap answers the same way, naming filters',
    async () => {
      const res = await direct.report(await newKey(), { owner_id: owner, group_by: 'url', limit: 10, ...range });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].message).toMatch(
        /more than 50000 groups to rank; narrow the report with a filter/,
      );
    },
    FLOOD_WAIT_MS,
  );

  test(
    'when the report is narrowed by a url filter, then it is answered',
    async () => {
      const res = await direct.report(await newKey(), {
        owner_id: owner,
        group_by: 'url',
        url: ['https://flood.example/7', 'https://flood.example/8'],
        ...range,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { name: 'impression', url: 'https://flood.example/7', value: 1 },
        { name: 'impression', url: 'https://flood.example/8', value: 1 },
      ]);
    },
    FLOOD_WAIT_MS,
  );

  test(
    'when a key already runs its allowed reports, then another one is 429 with Retry-After; a key of its own is not held up',
    async () => {
      const key = await newKey();
      const other = await newKey();
      const held = holdNextAggregation(h);
      const slow = h.report(key, { owner_id: owner, group_by: 'url', ...range });
      // the first report's count runs on the database (its reply held): its key's one slot is taken
      await held;
      const second = await h.report(key, { owner_id: owner, ...oneUrl });
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await h.report(other, { owner_id: owner, ...oneUrl })).status).toBe(200);
      gate.releaseAll();
      expect((await slow).status).toBe(400);
      // the slot is free once the closing of the first report's cursor (sent after its answer) has settled
      await waitUntil(
        async () => (await h.report(key, { owner_id: owner, ...oneUrl })).status === 200,
        60_000,
        'the key free again',
      );
    },
    FLOOD_WAIT_MS,
  );

  test(
    'when the client goes away mid-report, then its work stops and the key is free again once the query already sent has settled',
    async () => {
      const key = await newKey();
      const gone = new AbortController();
      const held = holdNextAggregation(h);
      const aborted = fetch(`${h.baseUrl}/api/v1/events/?api_key=${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ owner_id: owner, group_by: 'url', ...range }),
        signal: gone.signal,
      }).catch((err: unknown) => err);
      const requestId = await held;
      gone.abort();
      await aborted;
      // the departed client's count has not returned (its reply is held): the key's one slot waits for it
      expect(aggregationsOf.get(h)!.settled.has(requestId)).toBe(false);
      expect((await h.report(key, { owner_id: owner, ...oneUrl })).status).toBe(429);
      gate.releaseAll();
      await waitUntil(
        async () => (await h.report(key, { owner_id: owner, ...oneUrl })).status === 200,
        FLOOD_WAIT_MS / 2,
        'the key free again',
      );
      expect(aggregationsOf.get(h)!.settled.has(requestId)).toBe(true);
    },
    FLOOD_WAIT_MS,
  );
});

describe('report deadline', () => {
  test(
    'when a report is still waiting for its query at REPORT_DEADLINE_MS, then it is a 503 naming the deadline, answered while the query still runs',
    async () => {
      // a small owner of its own: the query that is held is cheap for the shared stand-in
      const small = newOwnerId();
      await tight.insertEvents([
        { owner_id: small, url: 'https://small.example/a', created: new Date(DAY + 3_600_000) },
        { owner_id: small, url: 'https://small.example/b', created: new Date(DAY + 7_200_000) },
      ]);
      const k = (await tight.createKey([small])).api_key;
      const seen = aggregationsOf.get(tight)!;
      const before = seen.started.length;
      const counts = () => seen.started.slice(before);
      // every count of this report is held: only stopping at the deadline can answer it
      seen.onStart = (requestId) => gate.hold(requestId);
      try {
        const res = await tight.report(k, { owner_id: small, group_by: 'url', ...range });
        expect(res.status).toBe(503);
        expect(res.body.error).toEqual({
          code: 'unavailable',
          message: `the report took longer than its deadline (${TIGHT_DEADLINE_MS} ms); narrow the time range or the filters`,
        });
        // answered while none of its counts had returned (a busy machine may pass the deadline before sending one)
        expect(counts().filter((id) => seen.settled.has(id))).toEqual([]);
      } finally {
        seen.onStart = undefined;
        gate.releaseAll();
      }
      // released, what it sent returns: nothing of the report is left running on the database
      await waitUntil(() => counts().every((id) => seen.settled.has(id)), 60_000, 'the held counts to return');
    },
    FLOOD_WAIT_MS,
  );
});
