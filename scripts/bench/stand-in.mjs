#!/usr/bin/env node
// `pnpm bench:stand-in`: the MongoDB stand-in's two storages side by side, alternating in one run:
// memory (tests) and H2 on disk with a commit per write command (`pnpm start`). Per round and
// storage: start-up time (spawn to port open, JVM included), insert rate of BENCH_DOCS event-like
// documents (unordered insertMany in batches of BENCH_BATCH into a collection with the day
// buckets' three indexes), and for H2 the file size and the start-up time on that file (a restart).
// Loopback only; each stand-in has BENCH_HEAP (default 2g) and is stopped after its round.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { BUCKET_INDEXES } = require(path.join(root, 'services/events/dist/storage/bucket-indexes.js'));
const { MongoClient } = createRequire(path.join(root, 'services/events/package.json'))('mongodb');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DOCS = Number(process.env.BENCH_DOCS ?? 50_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const HEAP = process.env.BENCH_HEAP ?? '2g';
const say = (msg) => console.error(`[bench] ${msg}`);

function eventDoc(i) {
  return {
    _id: `0190c0de-${String(i).padStart(12, '0')}`,
    owner_id: String(1_000 + (i % 10)),
    name: i % 5 === 0 ? 'click' : 'impression',
    url: `https://pub.example/article-${i % 200}`,
    content_id: `content-${i % 200}`,
    device_type: ['desktop', 'mobile', 'tablet'][i % 3],
    bot: i % 50 === 0,
    metadata: { utm_source: 'bench', variant: String(i % 4) },
    created: new Date(Date.UTC(2026, 10, 20, 12, 0, 0, i)),
  };
}

async function timedStart(opts) {
  const t0 = process.hrtime.bigint();
  const server = await testkit.startMongoStandIn({ heap: HEAP, ...opts });
  // the port opens before the first command is served on a big H2 file: time a ping too
  const client = await MongoClient.connect(server.url, { serverSelectionTimeoutMS: 60_000 });
  await client.db('admin').command({ ping: 1 });
  return { server, client, startMs: Number(process.hrtime.bigint() - t0) / 1e6 };
}

async function insertAll(client) {
  const coll = client.db('bench').collection('events_20261120');
  for (const index of BUCKET_INDEXES) await coll.createIndex(index.key, index.options);
  const t0 = process.hrtime.bigint();
  for (let from = 0; from < DOCS; from += BATCH) {
    const docs = [];
    for (let i = from; i < Math.min(DOCS, from + BATCH); i++) docs.push(eventDoc(i));
    await coll.insertMany(docs, { ordered: false });
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if ((await coll.countDocuments()) !== DOCS) throw new Error('not every document was stored');
  return DOCS / seconds;
}

async function round(storage) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-stand-in-'));
  const file = path.join(dir, 'data.mv.db');
  try {
    const first = await timedStart(storage === 'h2' ? { h2File: file } : {});
    const rate = await insertAll(first.client);
    await first.client.close();
    const result = { startMs: first.startMs, rate };
    if (storage === 'h2') {
      await first.server.stop();
      result.fileMb = statSync(file).size / 2 ** 20;
      const again = await timedStart({ h2File: file });
      result.restartMs = again.startMs;
      await again.client.close();
      await again.server.stop();
    } else {
      await first.server.stop();
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const range = (xs, digits = 0) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;

const results = { memory: [], h2: [] };
say(`${ROUNDS} rounds x (memory, h2), ${DOCS} documents in batches of ${BATCH}, heap ${HEAP}`);
for (let r = 0; r < ROUNDS; r++) {
  for (const storage of ['memory', 'h2']) {
    const res = await round(storage);
    results[storage].push(res);
    say(
      `round ${r + 1} ${storage}: start ${res.startMs.toFixed(0)} ms, ${res.rate.toFixed(0)} docs/s${res.fileMb ? `, file ${res.fileMb.toFixed(1)} MB, restart ${res.restartMs.toFixed(0)} ms` : ''}`,
    );
  }
}
const col = (storage, key, digits = 0) => {
  const xs = results[storage].map((x) => x[key]);
  return `${mean(xs).toFixed(digits)} (${range(xs, digits)})`;
};
console.log(
  `\n${ROUNDS} rounds, ${DOCS} documents per round (3 indexes), batches of ${BATCH}, heap ${HEAP}; mean (min-max)\n`,
);
console.log('| storage | start-up ms (empty) | insert docs/s | file MB | start-up ms on that file |');
console.log('|---|---|---|---|---|');
console.log(`| memory | ${col('memory', 'startMs')} | ${col('memory', 'rate')} | - | - |`);
console.log(
  `| h2, commit per write | ${col('h2', 'startMs')} | ${col('h2', 'rate')} | ${col('h2', 'fileMb', 1)} | ${col('h2', 'restartMs')} |`,
);
console.log(
  `\nh2 / memory insert rate = ${(mean(results.h2.map((x) => x.rate)) / mean(results.memory.map((x) => x.rate))).toFixed(2)}`,
);
