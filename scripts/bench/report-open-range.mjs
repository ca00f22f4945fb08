#!/usr/bin/env node
// `pnpm bench:report-open-range`: what the open-range reports of
// services/events/src/reporting/http/report-open-range.int.test.ts cost in time, which that test
// no longer asserts: an open bound clamped to the stored days, a far-future series refused by the
// range cap, an hour series of 10,000 buckets in a half-hour zone, and with an old day stored 450
// days back, the 1970 bound refused and the far-future one answered. The built reporting feature
// (services/events/dist) is served in this process (REPORT_MAX_RANGE_DAYS 420, as in the test) over
// four events; each scenario runs BENCH_RUNS (20) times after a warm-up, scenarios alternating run
// by run. Per scenario: the answer's status, wall-clock latency over HTTP (p50 and max), and the
// longest the event loop was held while the reports ran: the most CPU time this process spent
// between two ticks of a 2 ms timer (CPU time, so a busy neighbour that deschedules the process does
// not count; the old test bound was 50 ms). Data store: MONGO_URL when set, else a fresh MongoDB
// stand-in. Progress goes to stderr, the table to stdout.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { postJson as post, startReportingApp } from './reporting-app.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const platform = require(path.join(root, 'packages/platform/dist'));
const { bucketName } = dist('storage/bucket-naming');
const { BUCKET_INDEXES } = dist('storage/bucket-indexes');

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DAY_MS = 86_400_000;
const OWNER = '170000000000001';
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-report-open-range', level: 'error' });
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const dayText = (t) => new Date(t).toISOString().slice(0, 10);

const RECENT = [
  { name: 'open ranges: created__lte 9999-12-31 23:59:59', body: { created__lte: '9999-12-31 23:59:59' } },
  { name: 'open ranges: created__gte 10 days back', body: { created__gte: dayText(today - 10 * DAY_MS) } },
  { name: 'open ranges: no bounds', body: {} },
  {
    name: 'hour series to 9999-12-31 (range cap)',
    body: { created__gte: dayText(today), created__lte: '9999-12-31 23:59:59', interval: 'hour' },
  },
  {
    name: 'hour series of 10,000 buckets, Asia/Kolkata',
    body: {
      created__gte: dayText(today - 414 * DAY_MS),
      created__lte: dayText(today + DAY_MS),
      interval: 'hour',
      timezone: 'Asia/Kolkata',
    },
  },
];
const WITH_OLD_DAY = [
  { name: 'old day stored: created__gte 1970-01-01 (range cap)', body: { created__gte: '1970-01-01' } },
  { name: 'old day stored: created__lte 2250-01-01', body: { created__lte: '2250-01-01' } },
];

async function insert(db, created, name) {
  const bucket = db.collection(bucketName('events', created));
  for (const index of BUCKET_INDEXES) await bucket.createIndex(index.key, index.options);
  await bucket.insertOne({
    _id: randomBytes(16).toString('hex'),
    owner_id: OWNER,
    name,
    url: 'https://pub.example/a?utm_source=news',
    content_id: '',
    device_type: 'desktop',
    bot: false,
    metadata: {},
    created,
  });
}

/** Runs `fn` while a 2 ms timer records the most CPU time spent between two of its ticks (ms). */
async function heldLoop(fn) {
  let last = process.cpuUsage();
  let longestUs = 0;
  const probe = setInterval(() => {
    const used = process.cpuUsage(last);
    longestUs = Math.max(longestUs, used.user + used.system);
    last = process.cpuUsage();
  }, 2);
  try {
    const result = await fn();
    const used = process.cpuUsage(last);
    return { result, heldMs: Math.max(longestUs, used.user + used.system) / 1000 };
  } finally {
    clearInterval(probe);
  }
}

async function report(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ owner_id: OWNER, ...body }),
  });
  await res.arrayBuffer();
  return res.status;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];

/** Every scenario RUNS times after one warm-up each, alternating run by run. */
async function measure(url, scenarios) {
  const rows = scenarios.map((s) => ({ ...s, status: new Set(), ms: [], held: [] }));
  for (const s of scenarios) await report(url, s.body);
  for (let run = 0; run < RUNS; run++) {
    for (const row of rows) {
      const t0 = process.hrtime.bigint();
      const { result: status, heldMs } = await heldLoop(() => report(url, row.body));
      row.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      row.held.push(heldMs);
      row.status.add(status);
    }
  }
  return rows;
}

async function main() {
  const server = process.env.MONGO_URL ? undefined : await testkit.startMongoStandIn({ heap: '1g' });
  const mongoUrl = process.env.MONGO_URL ?? server.url;
  const handle = await platform.connectMongo(mongoUrl, `bench_open_range_${randomBytes(4).toString('hex')}`);
  const app = await startReportingApp({
    db: handle.db,
    mongoUrl,
    adminToken: ADMIN_TOKEN,
    logger,
    name: 'bench-report-open-range',
    env: { REPORT_MAX_RANGE_DAYS: '420' },
  });
  try {
    await insert(handle.db, new Date(today - 3 * DAY_MS + 5_000), 'view');
    await insert(handle.db, new Date(today - DAY_MS + 7_000), 'view');
    await insert(handle.db, new Date(today + 1_000), 'click');
    const key = await post(
      `${app.base}/admin/v1/api-keys`,
      { owner_ids: [OWNER] },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    const url = `${app.base}/api/v1/events/?api_key=${key.api_key}`;
    say(`${RUNS} runs per scenario`);
    const rows = await measure(url, RECENT);
    await insert(handle.db, new Date(today - 450 * DAY_MS), 'view');
    rows.push(...(await measure(url, WITH_OLD_DAY)));
    console.log(
      `\n${RUNS} runs per scenario after a warm-up, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores\n`,
    );
    console.log('| report | status | latency p50 / max, ms | event loop held p50 / max, CPU ms |');
    console.log('|---|---|---|---|');
    for (const row of rows) {
      const ms = [...row.ms].sort((a, b) => a - b);
      const held = [...row.held].sort((a, b) => a - b);
      console.log(
        `| ${row.name} | ${[...row.status].join(', ')} | ${pct(ms, 0.5).toFixed(1)} / ${ms.at(-1).toFixed(1)} | ${pct(held, 0.5).toFixed(1)} / ${held.at(-1).toFixed(1)} |`,
      );
    }
  } finally {
    await platform.closeServer(app.server, 2000);
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
    await server?.stop();
  }
}

main().catch((err) => {
  console.error(`[bench] failed: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
