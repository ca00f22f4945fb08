#!/usr/bin/env node
// `pnpm bench:report`: report latency over BENCH_EVENTS (default 1,000,000) events spread over
// BENCH_DAYS (30) UTC days, several owners, names, urls, content_ids and metadata.
// Loads the events into a fresh database with raw unordered insertMany (bounded batches, the
// day buckets and indexes the consumer would create), then serves the built reporting feature
// (services/events/dist) on an Express app on loopback and times POST /api/v1/events/ over HTTP:
// BENCH_RUNS (20) runs per scenario after a warm-up, scenarios alternating run by run so machine
// noise hits them alike. Data store: MONGO_URL when set, else a fresh MongoDB stand-in from the
// testkit (stopped at the end, so its memory is returned). The database is dropped at the end.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = (m) => require(require.resolve(m, { paths: [path.join(root, 'services/events')] }));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const platform = require(path.join(root, 'packages/platform/dist'));
const { loadEventsConfig } = require(path.join(root, 'services/events/dist/config'));
const { createReportingFeature } = require(path.join(root, 'services/events/dist/reporting/reporting-feature'));
const { bucketName } = require(path.join(root, 'services/events/dist/storage/bucket-naming'));
const { BUCKET_INDEXES } = require(path.join(root, 'services/events/dist/storage/bucket-indexes'));
const express = fromEvents('express');
const { v7 } = fromEvents('uuid');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const FIRST_DAY = Date.UTC(2026, 9, 1); // 2026-10-01
const DAY_MS = 86_400_000;
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;

const OWNERS = ['100000000000001', '100000000000002', '100000000000003', '100000000000004', '100000000000005'];
const NAMES = [['impression', 0.7], ['click', 0.2], ['view', 0.07], ['share', 0.03]];
const URLS = Array.from({ length: 50 }, (_, i) => `https://publisher.example/article/${i}`);
const CONTENT_IDS = Array.from({ length: 200 }, (_, i) => `content-${i}`);
const CAMPAIGNS = Array.from({ length: 10 }, (_, i) => `campaign-${i}`);
const DEVICES = ['desktop', 'desktop', 'mobile', 'mobile', 'mobile', 'tablet'];

const say = (msg) => console.error(`[bench] ${msg}`);

// Deterministic pseudo-random numbers, so every run loads the same data.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
function pickName() {
  let r = rand();
  for (const [name, p] of NAMES) if ((r -= p) < 0) return name;
  return NAMES[0][0];
}

/** Events of one day in time order; counts what a report of OWNERS[0] must return. */
function dayOfEvents(day, count, expected) {
  const start = FIRST_DAY + day * DAY_MS;
  const docs = [];
  for (let i = 0; i < count; i++) {
    const created = start + Math.floor((i / count) * DAY_MS);
    const doc = {
      _id: v7({ msecs: created }),
      owner_id: pick(OWNERS),
      name: pickName(),
      url: pick(URLS),
      content_id: pick(CONTENT_IDS),
      device_type: pick(DEVICES),
      bot: rand() < 0.02,
      metadata: { campaign: pick(CAMPAIGNS), variant: rand() < 0.5 ? 'a' : 'b', utm_source: pick(['news', 'social', 'mail']) },
      created: new Date(created),
    };
    if (doc.owner_id === OWNERS[0] && !doc.bot) expected.set(doc.name, (expected.get(doc.name) ?? 0) + 1);
    docs.push(doc);
  }
  return docs;
}

async function load(db, prefix) {
  const expected = new Map();
  const perDay = Math.ceil(EVENTS / DAYS);
  const started = Date.now();
  let loaded = 0;
  let nextProgress = 100_000;
  for (let day = 0; day < DAYS && loaded < EVENTS; day++) {
    const bucket = db.collection(bucketName(prefix, new Date(FIRST_DAY + day * DAY_MS)));
    for (const index of BUCKET_INDEXES) await bucket.createIndex(index.key, index.options ?? {});
    const docs = dayOfEvents(day, Math.min(perDay, EVENTS - loaded), expected);
    for (let i = 0; i < docs.length; i += BATCH) {
      await bucket.insertMany(docs.slice(i, i + BATCH), { ordered: false });
      loaded += Math.min(BATCH, docs.length - i);
      if (loaded >= nextProgress) {
        nextProgress += 100_000;
        say(`loaded ${loaded.toLocaleString('en')} events (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
  }
  const seconds = (Date.now() - started) / 1000;
  say(`loaded ${loaded.toLocaleString('en')} events into ${DAYS} day buckets in ${seconds.toFixed(1)} s (${(loaded / seconds).toFixed(0)} docs/s)`);
  return { expected, loaded, seconds };
}

async function startApp(db, mongoUrl) {
  const config = loadEventsConfig({ NODE_ENV: 'production', MONGO_URL: mongoUrl, ADMIN_TOKEN, REPORT_RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'error' });
  const logger = platform.createLogger({ service: 'bench-report', level: 'error' });
  const feature = await createReportingFeature({ db, logger, metrics: platform.createRegistry('bench-report'), config });
  const app = express();
  app.use(platform.requestContext(logger));
  app.use(...feature.routers);
  app.use(platform.notFoundHandler);
  app.use(platform.errorMiddleware(logger));
  const server = http.createServer(app);
  const port = await platform.listen(server, 0, '127.0.0.1');
  return { server, base: `http://127.0.0.1:${port}`, config };
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

async function main() {
  const ownStore = !process.env.MONGO_URL;
  const mongoServer = ownStore ? await testkit.startMongoStandIn() : undefined;
  const mongoUrl = process.env.MONGO_URL ?? mongoServer.url;
  say(`data store: ${ownStore ? `MongoDB stand-in at ${mongoUrl}` : 'MONGO_URL'}`);
  const handle = await platform.connectMongo(mongoUrl, `bench_reports_${randomBytes(4).toString('hex')}`);
  let app;
  try {
    const { expected, loaded, seconds } = await load(handle.db, 'events');
    app = await startApp(handle.db, mongoUrl);
    const key = await post(`${app.base}/admin/v1/api-keys`, { owner_ids: [OWNERS[0]] }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const report = (body) => post(`${app.base}/api/v1/events/?api_key=${key.api_key}`, { owner_id: OWNERS[0], ...body });

    const day = { created__gte: '2026-10-15 00:00:00', created__lte: '2026-10-15 23:59:59' };
    const month = { created__gte: '2026-10-01 00:00:00', created__lte: `2026-10-${String(DAYS).padStart(2, '0')} 23:59:59` };
    const scenarios = [];
    for (const [range, r] of [['1 day', day], [`${DAYS} days`, month]]) {
      scenarios.push({ name: `${range}, by name`, body: { ...r } });
      scenarios.push({ name: `${range}, group_by content_id,url`, body: { ...r, group_by: 'content_id,url' } });
      scenarios.push({ name: `${range}, metadata campaign,variant`, body: { ...r, metadata: 'campaign,variant' } });
      scenarios.push({ name: `${range}, group_by url + metadata`, body: { ...r, group_by: 'url', metadata: 'campaign,variant' } });
    }

    // correctness first: the month report of OWNERS[0] counts exactly its non-bot events
    const totals = await report(month);
    const got = new Map(totals.map((row) => [row.name, row.value]));
    const exact = [...expected].every(([name, n]) => got.get(name) === n) && got.size === expected.size;
    say(`${DAYS}-day totals ${exact ? 'match' : 'DO NOT match'} the loaded events: ${JSON.stringify(totals)}`);
    if (!exact) throw new Error(`expected ${JSON.stringify([...expected])}`);

    say(`warm-up, then ${RUNS} runs x ${scenarios.length} scenarios, alternating`);
    for (const s of scenarios) s.rows = (await report(s.body)).length;
    const times = scenarios.map(() => []);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, s] of scenarios.entries()) {
        const t0 = process.hrtime.bigint();
        await report(s.body);
        times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      if ((run + 1) % 5 === 0) say(`run ${run + 1}/${RUNS}`);
    }

    console.log(`\n${loaded.toLocaleString('en')} events over ${DAYS} days (${OWNERS.length} owners; the reported owner has ${[...expected.values()].reduce((a, b) => a + b, 0).toLocaleString('en')} non-bot events), loaded in ${seconds.toFixed(0)} s; ${RUNS} sequential runs per scenario over HTTP\n`);
    console.log('| scenario | rows | p50 ms | p99 ms | mean ms |');
    console.log('|---|---|---|---|---|');
    for (const [i, s] of scenarios.entries()) {
      const xs = times[i];
      console.log(`| ${s.name} | ${s.rows} | ${fmt(quantile(xs, 0.5))} | ${fmt(quantile(xs, 0.99))} | ${fmt(xs.reduce((a, b) => a + b, 0) / xs.length)} |`);
    }
  } finally {
    if (app) await platform.closeServer(app.server, 2000);
    await handle.db.dropDatabase().catch(() => undefined);
    await handle.close();
    if (mongoServer) await mongoServer.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
