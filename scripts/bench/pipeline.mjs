#!/usr/bin/env node
// `pnpm bench:pipeline`: CPU per event of every process on the event's path (ingest, nats-server,
// consumer, MongoDB stand-in) at the same steady pixel load, for this checkout ("after") and for an
// earlier release ("before", BENCH_BEFORE_REF, by default the last commit before group commit),
// alternating A B A B in one run. The earlier release is checked out into .cache/bench-before
// (git worktree), installed from the pnpm store and built once. Each round: an ingest process and
// a consumer process of that version, autocannon sending BENCH_RATE hits/s for BENCH_SECONDS over
// 64 keep-alive connections, then the consumer drains; CPU seconds from /proc between the first
// and the last hit written (+ drain), divided by the events written. autocannon itself is not on
// the path and not counted. Local NATS + the MongoDB stand-in (or NATS_URL / MONGO_URL).
// BENCH_CLIENTS=1: the hits come from realistic client addresses (scripts/bench/client-addresses.mjs,
// in X-Forwarded-For behind one trusted proxy, PIXEL_TRUSTED_PROXY_HOPS=1, for every variant)
// instead of all from 127.0.0.1, so per-client work (flood-limit keys, the visitor hash, the
// country lookup) sees many clients.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuPer, cpuSnapshot, storePids } from './proc-cpu.mjs';
import { FLOOD_LIMITS_OFF } from './flood-limits-off.mjs';
import { waitFor } from './wait-for.mjs';
import { clientAddresses } from './client-addresses.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = createRequire(path.join(root, 'services/events/package.json'));
const testkit = require(path.join(root, 'packages/testkit/dist'));
const contracts = require(path.join(root, 'packages/contracts/dist'));
const autocannon = require('autocannon');
const { connect } = fromEvents('@nats-io/transport-node');
const { Kvm } = fromEvents('@nats-io/kv');
const { jetstreamManager } = fromEvents('@nats-io/jetstream');
const { MongoClient } = fromEvents('mongodb');

const BEFORE_REF = process.env.BENCH_BEFORE_REF ?? 'c010a10';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RATE = Number(process.env.BENCH_RATE ?? 6400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = 64;
const CLIENTS = process.env.BENCH_CLIENTS === '1';
// the page every hit names: BENCH_PAGE_URL='https://news.example/guide/?utm_source=fb&fbclid=...' for a campaign link
const PAGE_URL = process.env.BENCH_PAGE_URL ?? 'https://pub.example/a';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const say = (msg) => console.error(`[bench] ${msg}`);

let servers;
const children = new Set();
async function stopAll(code) {
  for (const child of children) child.kill('SIGTERM');
  if (servers) await servers.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(130));

/** The earlier release, built once into .cache/bench-before (a detached git worktree). */
function prepareBefore() {
  const dir = path.join(root, '.cache', 'bench-before');
  const marker = path.join(dir, '.bench-built');
  const commit = execFileSync('git', ['rev-parse', BEFORE_REF], { cwd: root, encoding: 'utf8' }).trim();
  if (existsSync(marker) && readFileSync(marker, 'utf8') === commit) return dir;
  say(`building the "before" release ${BEFORE_REF} (${commit.slice(0, 10)}) in ${dir} ...`);
  if (existsSync(dir)) execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'inherit' });
  execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'inherit' });
  execFileSync('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], { cwd: dir, stdio: 'inherit' });
  execFileSync('pnpm', ['-s', 'build'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(marker, commit);
  return dir;
}

function startNode(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function startEvents(dir, roles, port, names, settings = {}) {
  return startNode([path.join(dir, 'services/events/dist/main.js')], {
    ...process.env,
    ...settings,
    NODE_ENV: 'production',
    ADMIN_TOKEN: `bench-${randomBytes(32).toString('base64url')}`,
    // ingest's visitor hash key (required in production; a build from before visitors ignores it)
    VISITOR_ID_KEY: randomBytes(32).toString('hex'),
    EVENTS_ROLES: roles,
    EVENTS_PORT: String(port),
    MONGO_URL: servers.mongoUrl,
    NATS_URL: servers.natsUrl,
    LOG_LEVEL: 'error',
    ...FLOOD_LIMITS_OFF,
    ...(CLIENTS ? { PIXEL_TRUSTED_PROXY_HOPS: '1' } : {}),
    ...names,
  });
}

/** Events the consumer has written so far (the metric was per message before v2, per event since). */
async function written(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('events_consumer_events_total{outcome="written"') ||
        l.startsWith('events_consumer_messages_total{outcome="written"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

// each connection goes through the same sequence of client addresses, one per request
let forwardedFor;
const load = (url, opts) =>
  new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        headers: { 'user-agent': CHROME },
        timeout: 10,
        ...(forwardedFor
          ? {
              requests: forwardedFor.map((a) => ({
                method: 'GET',
                headers: { 'user-agent': CHROME, 'x-forwarded-for': a },
              })),
            }
          : {}),
        ...opts,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );

/**
 * Drops a round's database and stream: the stand-in keeps every document in its heap, and the
 * rounds' leftovers (100,000 events each) would make later rounds pay for its garbage collector.
 */
async function dropRound(names) {
  const mongo = await MongoClient.connect(servers.mongoUrl);
  try {
    await mongo.db(names.MONGO_DB).dropDatabase();
  } finally {
    await mongo.close();
  }
  const nc = await connect({ servers: servers.natsUrl });
  try {
    await (await jetstreamManager(nc)).streams.delete(names.EVENTS_STREAM);
  } finally {
    await nc.close();
  }
}

async function round(label, dir, owner, settings, experiment = false) {
  const id = randomBytes(4).toString('hex');
  const names = {
    MONGO_DB: `bench_pipe_${id}`,
    OWNER_REGISTRY_BUCKET: `bench_pipe_owners`,
    EVENTS_STREAM: `BENCH_PIPE_${id}`,
    EVENTS_SUBJECT_PREFIX: `bench_pipe_${id}`,
    EVENTS_DEAD_LETTER_SUBJECT: `bench_pipe_dlq_${id}`,
    CONSUMER_DURABLE: `bench_pipe_${id}`,
  };
  const [ingestPort, consumerPort] = [await testkit.freePort(), await testkit.freePort()];
  // the consumer first: it creates the stream, which the experiment does not
  const consumer = startEvents(dir, 'consumer', consumerPort, names, settings);
  await waitFor(
    `${label} consumer ready`,
    async () => (await fetch(`http://127.0.0.1:${consumerPort}/readyz`)).ok,
    30_000,
  );
  const ingest = experiment
    ? startNode(
        [
          path.join(root, 'scripts/bench/group-commit-experiment.mjs'),
          String(ingestPort),
          servers.natsUrl,
          `${names.EVENTS_SUBJECT_PREFIX}.batch`,
          owner,
        ],
        process.env,
      )
    : startEvents(dir, 'ingest', ingestPort, names, settings);
  const probe = experiment ? '/ready?name=warm' : '/readyz';
  await waitFor(
    `${label} ingest ready`,
    async () => (await fetch(`http://127.0.0.1:${ingestPort}${probe}`)).ok,
    30_000,
  );
  const url = `http://127.0.0.1:${ingestPort}/v1/v.gif?owner_id=${owner}&name=impression&content_id=article-1&url=${encodeURIComponent(PAGE_URL)}&utm_source=bench`;
  // warm-up (JIT, buckets, indexes), written before the measurement starts
  const warm = await load(url, { amount: 5000 });
  await waitFor(`${label} warm-up written`, async () => (await written(consumerPort)) >= warm['2xx'], 60_000);
  const base = await written(consumerPort);
  const pids = { ingest: ingest.pid, ...storePids(), consumer: consumer.pid };
  const before = cpuSnapshot(pids);
  const res = await load(url, { amount: RATE * SECONDS, overallRate: RATE });
  const failed = res.errors + res.timeouts + res.non2xx;
  if (failed > 0) throw new Error(`${label}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`);
  const target = base + res['2xx'];
  await waitFor(`${label} drained`, async () => (await written(consumerPort)) >= target, 120_000);
  const after = cpuSnapshot(pids);
  const events = (await written(consumerPort)) - base;
  for (const child of [ingest, consumer]) child.kill('SIGTERM');
  await Promise.all([ingest, consumer].map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)))));
  const cpu = cpuPer(before, after, events);
  await dropRound(names);
  say(
    `${label}: ${events} events at ${(res['2xx'] / res.duration).toFixed(0)} hits/s, p99 ${res.latency.p99} ms; CPU us/event ${Object.entries(
      cpu,
    )
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}`,
  );
  return { cpu, p99: res.latency.p99, p50: res.latency.p50 };
}

async function main() {
  const beforeDir = prepareBefore();
  // 4,000 clients: autocannon builds every request of the sequence for each of its connections
  if (CLIENTS) forwardedFor = clientAddresses({ seed: 1, count: 4_000 }).mix;
  servers = await testkit.startTestServers();
  say(`data stores: ${servers.source}; ${ROUNDS} rounds x ${SECONDS} s at ${RATE} hits/s per variant`);
  const owner = `${Date.now()}`;
  const nc = await connect({ servers: servers.natsUrl });
  const kv = await new Kvm(nc).create('bench_pipe_owners', { history: 1 });
  await kv.put(
    owner,
    contracts.encodeOwnerRecord({
      owner_id: owner,
      account_id: owner,
      created_at: new Date().toISOString(),
      revision: 1,
      redirect_hosts: [],
    }),
  );
  await nc.close();

  const variants = [
    {
      label: `before (${BEFORE_REF}${process.env.BENCH_BEFORE_REF ? '' : ': one JetStream message per event'})`,
      dir: beforeDir,
      runs: [],
    },
    {
      label: `after (this checkout${process.env.BENCH_BEFORE_REF ? '' : ': group commit, one message per flush'})`,
      dir: root,
      runs: [],
    },
  ];
  // BENCH_SETTINGS='{"CONSUMER_MAX_WAIT_MS":"1000"}': a third variant, this checkout with those settings
  const settings = process.env.BENCH_SETTINGS ? JSON.parse(process.env.BENCH_SETTINGS) : undefined;
  if (settings)
    variants.push({
      label: `after with ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
      dir: root,
      runs: [],
      settings,
    });
  // BENCH_FLOOR=1: a variant whose ingest is the minimal group-commit experiment (no validation,
  // device detection, registry, flood limits or metrics): what this design's ingest costs at least
  if (process.env.BENCH_FLOOR === '1')
    variants.push({ label: 'floor (ingest = minimal group-commit experiment)', dir: root, runs: [], experiment: true });
  for (let r = 0; r < ROUNDS; r++)
    for (const v of variants)
      v.runs.push(await round(`round ${r + 1} ${v.label}`, v.dir, owner, v.settings, v.experiment));

  const processes = ['ingest', 'nats', 'consumer', 'mongo'];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const cpuOfVariant = (v) => Object.fromEntries(processes.map((p) => [p, mean(v.runs.map((run) => run.cpu[p]))]));
  const [before, after, ...extra] = variants.map(cpuOfVariant);
  const total = (c) => processes.reduce((sum, p) => sum + c[p], 0);
  const pct = (x, base) => `${(((x - base) / base) * 100).toFixed(0)} %`;
  const more = extra.map((c, i) => ({ c, label: variants[i + 2].label }));
  console.log(
    `\nCPU microseconds per event at ${RATE} pixel hits/s (${ROUNDS} rounds x ${SECONDS} s per variant, alternating; mean of rounds)\n`,
  );
  console.log(`| process | before | after | change |${more.map((m) => ` ${m.label} | change |`).join('')}`);
  console.log(`|---|---|---|---|${more.map(() => '---|---|').join('')}`);
  const names = {
    ingest: 'ingest (pixel -> JetStream)',
    nats: 'nats-server',
    consumer: 'consumer (JetStream -> MongoDB)',
    mongo: 'MongoDB stand-in',
  };
  for (const p of processes)
    console.log(
      `| ${names[p]} | ${before[p].toFixed(1)} | ${after[p].toFixed(1)} | ${pct(after[p], before[p])} |${more.map((m) => ` ${m.c[p].toFixed(1)} | ${pct(m.c[p], before[p])} |`).join('')}`,
    );
  const change = (total(after) - total(before)) / total(before);
  console.log(
    `| **total** | **${total(before).toFixed(1)}** | **${total(after).toFixed(1)}** | **${(change * 100).toFixed(0)} %** |${more.map((m) => ` **${total(m.c).toFixed(1)}** | **${pct(total(m.c), total(before))}** |`).join('')}`,
  );
  const p99 = (v) => mean(v.runs.map((run) => run.p99));
  console.log(
    `\npixel p99 at that load: before ${p99(variants[0]).toFixed(0)} ms, after ${p99(variants[1]).toFixed(0)} ms; target: total at least 40 % lower`,
  );
  return change <= -0.4 ? 0 : 2;
}

main().then(
  (code) => stopAll(code),
  (err) => {
    console.error(err);
    void stopAll(1);
  },
);
