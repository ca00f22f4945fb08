#!/usr/bin/env node
// `pnpm bench:consumer`: the events consumer (JetStream -> day bucket, built service in
// services/events/dist, consumer role alone) next to raw unordered insertMany of the same
// documents, in the same batch size, into the same database, alternating A B C A B C in one run:
// raw insertMany; the consumer reading v2 batch messages of BENCH_EVENTS_PER_MESSAGE events (what
// group-commit ingest publishes under load); the consumer reading v1 messages of one event each
// (what ingest published before group commit). Each consumer round publishes BENCH_EVENTS events
// to a fresh stream first (not timed), then starts a consumer process on it and times the writing
// from its /metrics (process start-up excluded). Local NATS + the MongoDB stand-in from the
// testkit (or NATS_URL / MONGO_URL). Loopback only; bounded: BENCH_ROUNDS (default 2) x
// BENCH_EVENTS (default 50000) per variant. BENCH_COMPARE_DIST adds another build's consumer (below).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuPer, cpuProfileArgs, cpuSnapshot, storePids } from './proc-cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = createRequire(path.join(root, 'services/events/package.json'));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const contracts = require(path.join(root, 'packages/contracts/dist'));
const { toEventDocument } = require(path.join(root, 'services/events/dist/storage/event-document.js'));
const { BUCKET_INDEXES } = require(path.join(root, 'services/events/dist/storage/bucket-indexes.js'));
const { bucketName } = require(path.join(root, 'services/events/dist/storage/bucket-naming.js'));
const { eventStreamConfig } = require(path.join(root, 'services/events/dist/stream/stream-config.js'));
const { loadEventsConfig } = require(path.join(root, 'services/events/dist/config.js'));
const { connect } = fromEvents('@nats-io/transport-node');
const { jetstream, jetstreamManager } = fromEvents('@nats-io/jetstream');
const { MongoClient } = fromEvents('mongodb');
const { v7 } = fromEvents('uuid');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const PER_MESSAGE = Number(process.env.BENCH_EVENTS_PER_MESSAGE ?? 20);
// BENCH_COMPARE_DIST=<another checkout>/services/events/dist: that build's consumer runs in every
// round too, on the same events as its own ingest published them (the before of a change, same run)
const COMPARE_DIST = process.env.BENCH_COMPARE_DIST ? path.resolve(process.env.BENCH_COMPARE_DIST) : undefined;
const THIS_MAIN = path.join(root, 'services/events/dist/main.js');
const say = (msg) => console.error(`[bench] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let servers;
let child;

function cpuSnapshotOf(writerPid) {
  const { mongo, nats } = storePids();
  return cpuSnapshot({ writer: writerPid, mongo, nats });
}
async function stopAll(code) {
  child?.kill('SIGTERM');
  if (servers) await servers.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(130));

/** Event messages as ingest would publish them: a few owners, names, content ids and metadata. */
function makeMessages(n) {
  const created = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => ({
    v: 1,
    id: v7(),
    owner_id: String(1000 + (i % 10)),
    name: i % 4 === 0 ? 'click' : 'impression',
    url: `https://pub.example/articles/${i % 200}`,
    content_id: `article-${i % 200}`,
    device_type: ['desktop', 'mobile', 'tablet'][i % 3],
    bot: i % 50 === 0,
    metadata: { utm_source: 'newsletter', utm_campaign: `spring-${i % 7}` },
    created,
    // the visitor hash ingest adds (52 bits); one visitor per four events
    visitor: ((Math.floor(i / 4) * 2_654_435_761) % 2 ** 32) * 2 ** 20 + (i % 2 ** 20),
    // one event in eight an engagement with its measures, one click in ten with a conversion value
    ...(i % 8 === 1 ? { measures: { engaged_ms: (i * 7919) % 600_000, scroll_depth: i % 101 } } : {}),
    ...(i % 40 === 0 ? { measures: { value: 100 + (i % 9_900) } } : {}),
  }));
}

async function rawInserts(db, messages, collectionName) {
  const collection = db.collection(collectionName);
  for (const index of BUCKET_INDEXES) await collection.createIndex(index.key, index.options ?? {});
  const docs = messages.map(toEventDocument);
  const cpuBefore = cpuSnapshotOf(process.pid);
  const started = performance.now();
  for (let i = 0; i < docs.length; i += BATCH)
    await collection.insertMany(docs.slice(i, i + BATCH), { ordered: false });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuPer(cpuBefore, cpuSnapshotOf(process.pid), docs.length);
  if ((await collection.countDocuments()) !== docs.length) throw new Error('raw insert count mismatch');
  await collection.drop();
  return { rate: docs.length / seconds, cpu };
}

async function writtenSoFar(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('events_consumer_events_total{outcome="written"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The events as JetStream messages: v2 batches of `perMessage` events (as ingest publishes them now), or v1 single events. */
function toPublications(messages, perMessage, prefix) {
  if (perMessage === 1)
    return messages.map((m) => ({
      subject: `${prefix}.${m.owner_id}`,
      data: contracts.encodeEventMessage(m),
      msgID: m.id,
    }));
  const out = [];
  for (let i = 0; i < messages.length; i += perMessage) {
    const id = v7();
    const events = messages.slice(i, i + perMessage).map(({ v: _v, ...event }) => contracts.encodeEventRecord(event));
    out.push({ subject: contracts.eventBatchSubject(prefix), data: contracts.encodeEventBatch(id, events), msgID: id });
  }
  return out;
}

async function consumerRun(nc, db, messages, round, perMessage, main = THIS_MAIN) {
  const id = randomBytes(4).toString('hex');
  const env = {
    NODE_ENV: 'production',
    ADMIN_TOKEN: `bench-${randomBytes(32).toString('base64url')}`,
    EVENTS_ROLES: 'consumer',
    MONGO_URL: servers.mongoUrl,
    NATS_URL: servers.natsUrl,
    MONGO_DB: db.databaseName,
    EVENTS_STREAM: `BENCH_C_${id}`,
    EVENTS_SUBJECT_PREFIX: `bench_c_${id}`,
    EVENTS_DEAD_LETTER_SUBJECT: `bench_c_dlq_${id}`,
    CONSUMER_DURABLE: `bench_c_${id}`,
    BUCKET_PREFIX: `bench_c${round}_${id}`,
    CONSUMER_BATCH_SIZE: String(BATCH),
    LOG_LEVEL: 'error',
  };
  const config = loadEventsConfig(env);
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add(eventStreamConfig(config));
  const js = jetstream(nc);
  // publish everything first (not timed), a window of acks in flight at a time
  const publications = toPublications(messages, perMessage, config.EVENTS_SUBJECT_PREFIX);
  for (let i = 0; i < publications.length; i += 1000) {
    await Promise.all(publications.slice(i, i + 1000).map((p) => js.publish(p.subject, p.data, { msgID: p.msgID })));
  }
  const port = await testkit.freePort();
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each consumer process
  child = spawn(process.execPath, [...cpuProfileArgs(), main], {
    env: { ...process.env, ...env, EVENTS_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // sample the written counter; the rate is taken between the first and the last sample that moved
  let first;
  let last;
  const deadline = Date.now() + 300_000;
  for (;;) {
    let written = 0;
    try {
      written = await writtenSoFar(port);
    } catch {
      /* not listening yet */
    }
    const now = performance.now();
    const cpu = cpuSnapshotOf(child.pid);
    if (written > 0 && !first) first = { now, written, cpu };
    if (written > 0) last = { now, written, cpu };
    if (written >= messages.length) break;
    if (Date.now() > deadline) throw new Error(`consumer wrote ${written} of ${messages.length}`);
    await sleep(200);
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  child = undefined;
  const bucket = bucketName(config.BUCKET_PREFIX, new Date(messages[0].created));
  const stored = await db.collection(bucket).countDocuments();
  if (stored !== messages.length) throw new Error(`bucket holds ${stored}, expected ${messages.length}`);
  await db.collection(bucket).drop();
  await jsm.streams.delete(config.EVENTS_STREAM);
  await jsm.streams.delete(`${config.EVENTS_STREAM}_DLQ`).catch(() => undefined);
  const docs = last.written - first.written;
  return { rate: docs / ((last.now - first.now) / 1000), cpu: cpuPer(first.cpu, last.cpu, docs) };
}

async function main() {
  servers = await testkit.startTestServers();
  say(`data stores: ${servers.source}; ${ROUNDS} rounds x ${EVENTS} events, batches of ${BATCH}`);
  const nc = await connect({ servers: servers.natsUrl });
  const mongo = await MongoClient.connect(servers.mongoUrl);
  const db = mongo.db(`bench_consumer_${randomBytes(4).toString('hex')}`);
  // warm-up, not measured: the stand-in's JVM keeps getting faster for a while, which would
  // otherwise favour whichever variant runs later
  for (let i = 0; i < 3; i++) await rawInserts(db, makeMessages(EVENTS), `warmup_${i}`);

  const raw = [];
  const consumer = [];
  const single = [];
  const compared = [];
  for (let round = 0; round < ROUNDS; round++) {
    const messages = makeMessages(EVENTS);
    raw.push(await rawInserts(db, messages, `raw_${round}`));
    say(`round ${round + 1} raw insertMany: ${raw[round].rate.toFixed(0)} docs/s`);
    // the compared build's ingest published no visitor nor measures; A B, then B A, so neither always goes first
    const theirs = () =>
      consumerRun(
        nc,
        db,
        messages.map(({ visitor: _visitor, measures: _measures, ...m }) => m),
        round,
        PER_MESSAGE,
        path.join(COMPARE_DIST, 'main.js'),
      );
    if (COMPARE_DIST && round % 2 === 1) compared.push(await theirs());
    consumer.push(await consumerRun(nc, db, messages, round, PER_MESSAGE));
    say(`round ${round + 1} consumer, ${PER_MESSAGE} events per message: ${consumer[round].rate.toFixed(0)} events/s`);
    if (COMPARE_DIST && round % 2 === 0) compared.push(await theirs());
    if (COMPARE_DIST) say(`round ${round + 1} compared build's consumer: ${compared[round].rate.toFixed(0)} events/s`);
    single.push(await consumerRun(nc, db, makeMessages(EVENTS), round, 1));
    say(`round ${round + 1} consumer, one event per message: ${single[round].rate.toFixed(0)} events/s`);
  }
  await nc.close();
  await db.dropDatabase();
  await mongo.close();

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rates = (runs) => runs.map((r) => r.rate);
  const ratio = mean(rates(consumer)) / mean(rates(raw));
  console.log(
    `\n${ROUNDS} rounds x ${EVENTS} events, write batches of ${BATCH}, alternating; mean of rounds (min-max)\n`,
  );
  console.log('| variant | docs/s (min-max) | vs raw |');
  console.log('|---|---|---|');
  const row = (label, runs) => {
    const xs = rates(runs);
    console.log(
      `| ${label} | ${mean(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}) | ${(mean(xs) / mean(rates(raw))).toFixed(2)} |`,
    );
  };
  row(`consumer, v2 messages of ${PER_MESSAGE} events: pull -> decode -> day bucket -> insertMany -> ack`, consumer);
  row('consumer, v1 messages of one event (before group commit)', single);
  if (COMPARE_DIST) row(`consumer of ${process.env.BENCH_COMPARE_DIST}, v2 messages (its events)`, compared);
  row('raw unordered insertMany, same documents and batch size', raw);
  const pairs = consumer.map((c, i) => c.rate / raw[i].rate);
  console.log(
    `\nconsumer (v2) / raw = ${ratio.toFixed(2)} (target >= 0.8); per round ${pairs.map((x) => x.toFixed(2)).join(', ')}`,
  );
  const cpuRow = (label, runs) => {
    const c = (k) => mean(runs.map((r) => r.cpu[k]));
    console.log(
      `| ${label} | ${c('writer').toFixed(1)} | ${c('mongo').toFixed(1)} | ${c('nats').toFixed(1)} | ${(c('writer') + c('mongo') + c('nats')).toFixed(1)} |`,
    );
  };
  console.log('\nCPU microseconds per document while writing (mean of rounds; /proc, all processes share the cores)\n');
  console.log('| variant | writing Node process | MongoDB stand-in | nats-server | total |');
  console.log('|---|---|---|---|---|');
  cpuRow(`consumer, v2 (${PER_MESSAGE} per message)`, consumer);
  cpuRow('consumer, v1 (1 per message)', single);
  if (COMPARE_DIST) cpuRow('compared build, v2', compared);
  cpuRow('raw insertMany', raw);
  return ratio >= 0.8 ? 0 : 2;
}

main().then(
  (code) => stopAll(code),
  (err) => {
    console.error(err);
    void stopAll(1);
  },
);
