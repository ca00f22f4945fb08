#!/usr/bin/env node
// `pnpm bench:raw-measures`: a percentile report over a raw span in which every event carries a
// measure value of its own (what anyone sending an owner's pixel distinct engaged_ms values
// makes): BENCH_VALUES (200,000) engagement events of today, each a distinct engaged_ms, then the
// report `engaged_ms_p50, p90, gte_300000, sum, avg` grouped by url, with the default bounds
// (REPORT_DEADLINE_MS 30 s, MAX_GROUP_BYTES 96 MiB). The raw `$group` returns a row per distinct
// value; the report folds each into its group's quantile sketch and sums as it arrives, so the
// group stays one bounded sketch. Prints the status, latency (p50 and max of BENCH_RUNS, 5) and
// the reporting process's heap growth. The built reporting feature (services/events/dist) is
// served in this process over a fresh MongoDB stand-in (or MONGO_URL). Progress on stderr.
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

const VALUES = Number(process.env.BENCH_VALUES ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const OWNER = '170000000000002';
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const URL_ = 'https://news.example/story?id=7';
const say = (msg) => console.error(`[bench] ${msg}`);
const logger = platform.createLogger({ service: 'bench-raw-measures', level: 'error' });

async function load(db, start) {
  const bucket = db.collection(bucketName('events', start));
  for (const index of BUCKET_INDEXES) await bucket.createIndex(index.key, index.options);
  for (let i = 0; i < VALUES; i += 5000) {
    const docs = [];
    for (let j = i; j < Math.min(VALUES, i + 5000); j++)
      docs.push({
        _id: randomBytes(16).toString('hex'),
        owner_id: OWNER,
        name: 'engagement',
        url: URL_,
        content_id: '',
        device_type: ['desktop', 'mobile', 'tablet'][j % 3],
        bot: false,
        metadata: {},
        created: new Date(start.getTime() + (j % 3_600_000)),
        visitor: 1 + (j % 20_000),
        // distinct per event: 1 s + 3 ms steps (200,000 of them reach 10 min)
        measures: { engaged_ms: 1000 + j * 3 },
      });
    await bucket.insertMany(docs, { ordered: false });
    if (i % 50_000 === 0) say(`loaded ${i.toLocaleString('en')}`);
  }
}

async function main() {
  const server = process.env.MONGO_URL ? undefined : await testkit.startMongoStandIn({ heap: '4g' });
  const mongoUrl = process.env.MONGO_URL ?? server.url;
  const handle = await platform.connectMongo(mongoUrl, `bench_raw_measures_${randomBytes(4).toString('hex')}`);
  const app = await startReportingApp({
    db: handle.db,
    mongoUrl,
    adminToken: ADMIN_TOKEN,
    logger,
    name: 'bench-raw-measures',
  });
  try {
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
    await load(handle.db, today);
    const key = await post(
      `${app.base}/admin/v1/api-keys`,
      { owner_ids: [OWNER] },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    const url = `${app.base}/api/v1/events/?api_key=${key.api_key}`;
    const day = today.toISOString().slice(0, 10);
    const body = {
      owner_id: OWNER,
      name: 'engagement',
      group_by: 'url',
      metrics: 'count,engaged_ms_p50,engaged_ms_p90,engaged_ms_gte_300000,engaged_ms_sum,engaged_ms_avg',
      created__gte: day,
      created__lte: day,
    };
    const ms = [];
    const statuses = new Set();
    let answer;
    let heapGrowth = 0;
    for (let run = 0; run < RUNS; run++) {
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      let peak = before;
      const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
      const t0 = process.hrtime.bigint();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      answer = await res.json();
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      clearInterval(probe);
      statuses.add(res.status);
      heapGrowth = Math.max(heapGrowth, peak - before);
    }
    ms.sort((a, b) => a - b);
    console.log(
      `\n${VALUES.toLocaleString('en')} distinct engaged_ms values in one raw day, ${RUNS} runs, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores\n`,
    );
    console.log('| status | latency p50 / max, ms | heap growth, MiB | answer |');
    console.log('|---|---|---|---|');
    const row = Array.isArray(answer) ? answer[0] : answer;
    console.log(
      `| ${[...statuses].join(', ')} | ${ms[Math.ceil(ms.length / 2) - 1].toFixed(0)} / ${ms.at(-1).toFixed(0)} | ${(heapGrowth / 2 ** 20).toFixed(1)} | ${JSON.stringify(row)} |`,
    );
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
