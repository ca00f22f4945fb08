#!/usr/bin/env node
// `pnpm bench:local-capacity`: how many events one day may hold in the local store of `pnpm start`
// (the MongoDB stand-in on an H2 file, heap MONGO_STAND_IN_HEAP, default 1g as in `pnpm start`)
// before a report on today slows past 1 s. It fills today's day bucket in steps (LOCAL_CAPACITY_STEPS,
// cumulative totals, default 25k,50k,100k,200k,400k), inserting documents in the consumer's bucket
// shape directly (no NATS, no rollups: today is always read raw). After each step it restarts the
// stand-in on that file (start-up = spawn to first ping answered) and times today's report by name
// over HTTP through the built reporting feature (median of 3 runs after one warm-up). It prints a
// table and stops at the first step whose report takes more than 1 s. Its data lives in a temporary
// directory, deleted at the end; it never touches `.local/`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNERS, eventBatches } from './report-data.mjs';
import { postJson as post, startReportingApp } from './reporting-app.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const platform = require(path.join(root, 'packages/platform/dist'));
const { bucketName } = dist('storage/bucket-naming');
const { BUCKET_INDEXES } = dist('storage/bucket-indexes');

const STEPS = (process.env.LOCAL_CAPACITY_STEPS ?? '25000,50000,100000,200000,400000').split(',').map(Number);
const HEAP = process.env.MONGO_STAND_IN_HEAP ?? '1g';
const LIMIT_MS = 1000;
const DAY_MS = 86_400_000;
const DB = 'events';
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;
const say = (msg) => console.error(`[capacity] ${msg}`);
const logger = platform.createLogger({ service: 'bench-local-capacity', level: 'error' });
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const todayIso = new Date(today).toISOString().slice(0, 10);

async function startStore(h2File) {
  const t0 = process.hrtime.bigint();
  const server = await testkit.startMongoStandIn({ h2File, heap: HEAP });
  // on a big file the port opens before the first command is served: the start-up ends at a ping
  const handle = await platform.connectMongo(server.url, DB);
  await handle.db.command({ ping: 1 });
  return { server, handle, startMs: Number(process.hrtime.bigint() - t0) / 1e6 };
}

/** Adds events to today's bucket until it holds `total`, in the consumer's document shape. */
async function fill(db, from, total) {
  const bucket = db.collection(bucketName('events', new Date(today)));
  for (const index of BUCKET_INDEXES) await bucket.createIndex(index.key, index.options);
  // spread over the part of today already past, so every event is inside "today so far"
  const days = Math.max(60_000, Date.now() - today) / DAY_MS;
  const batches = eventBatches(
    { total: total - from, days, firstDay: today, urls: 2000, batch: 1000, seed: from + 1 },
    new Map(),
  );
  for (const docs of batches) await bucket.insertMany(docs, { ordered: false });
}

/** Median of 3 timed reports on today (after one warm-up), in ms; a failed report (e.g. its time budget) counts as over the limit. */
async function timeTodayReport(db, mongoUrl) {
  const app = await startReportingApp({ db, mongoUrl, adminToken: ADMIN_TOKEN, logger, name: 'bench-local-capacity' });
  try {
    const key = await post(
      `${app.base}/admin/v1/api-keys`,
      { owner_ids: [OWNERS[0]] },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    const body = { owner_id: OWNERS[0], created__gte: `${todayIso} 00:00:00`, created__lte: `${todayIso} 23:59:59` };
    const times = [];
    for (let run = 0; run < 4; run++) {
      const t0 = process.hrtime.bigint();
      try {
        await post(`${app.base}/api/v1/events/?api_key=${key.api_key}`, body);
      } catch (err) {
        say(`report failed: ${err instanceof Error ? err.message : err}`);
        return { ms: Infinity, failed: true };
      }
      if (run > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return { ms: times.sort((a, b) => a - b)[1], failed: false };
  } finally {
    await platform.closeServer(app.server, 2000);
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'local-capacity-'));
  const file = path.join(dir, 'data.mv.db');
  const rows = [];
  let store = await startStore(file);
  say(`stand-in on ${file} (heap ${HEAP}), empty start-up ${(store.startMs / 1000).toFixed(1)} s`);
  try {
    let stored = 0;
    for (const total of STEPS) {
      const t0 = Date.now();
      await fill(store.handle.db, stored, total);
      stored = total;
      say(
        `${total.toLocaleString('en')} events in today's bucket (filled in ${((Date.now() - t0) / 1000).toFixed(0)} s); restarting the stand-in`,
      );
      await store.handle.close();
      await store.server.stop();
      const fileMb = statSync(file).size / 2 ** 20;
      store = await startStore(file);
      const report = await timeTodayReport(store.handle.db, store.server.url);
      rows.push({ total, fileMb, startMs: store.startMs, ...report });
      say(
        `start-up ${(store.startMs / 1000).toFixed(1)} s, today's report ${report.failed ? 'failed' : `${report.ms.toFixed(0)} ms`}`,
      );
      if (report.ms > LIMIT_MS) break;
    }
  } finally {
    await store.handle.close().catch(() => undefined);
    await store.server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const within = rows.filter((r) => r.ms <= LIMIT_MS).at(-1);
  console.log(
    `\nMongoDB stand-in on an H2 file, heap ${HEAP}; today's report by name of one owner (~20 % of the events), median of 3; load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.log("| events in today | H2 file, MB | stand-in start-up, s | today's report, ms |");
  console.log('|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.total.toLocaleString('en')} | ${r.fileMb.toFixed(0)} | ${(r.startMs / 1000).toFixed(1)} | ${r.failed ? 'failed (time budget)' : r.ms.toFixed(0)} |`,
    );
  console.log(
    within
      ? `\ncapacity: about ${within.total.toLocaleString('en')} events a day keep today's report under 1 s`
      : '\ncapacity: below the first step',
  );
}

main().catch((err) => {
  console.error(`[capacity] failed: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
