#!/usr/bin/env node
// `pnpm bench:pixel`: the pixel (GET /v1/v.gif, publish to JetStream, 200 after the ack) next to a
// bare node:http server answering the same GIF with the same headers, alternating A B A B in one
// run so machine noise hits both alike. The built events service (services/events/dist/main.js)
// runs the ingest role alone, as it would in production; after the load, a consumer + reporting
// process drains the stream and the report must count exactly the 200s autocannon received.
// Local NATS + the MongoDB stand-in from the testkit (or NATS_URL / MONGO_URL). Loopback only;
// bounded: BENCH_ROUNDS x about BENCH_SECONDS per variant (default 4 x 5 s) plus a 5000-request
// warm-up each. BENCH_EXPERIMENT=1 adds a third variant: scripts/bench/group-commit-experiment.mjs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOOD_LIMITS_OFF } from './flood-limits-off.mjs';
import { cpuProfileArgs } from './proc-cpu.mjs';
import { waitFor } from './wait-for.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = createRequire(path.join(root, 'services/events/package.json'));

// the bare baseline runs as its own process: this file with --bare <port>
if (process.argv[2] === '--bare') {
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
  const headers = [
    'Content-Type',
    'image/gif',
    'Content-Length',
    String(gif.length),
    'Cache-Control',
    'no-store, no-cache, must-revalidate, private',
    'Access-Control-Allow-Origin',
    '*',
  ];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(gif);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.argv[3]), '127.0.0.1');
} else {
  await bench();
}

async function bench() {
  const testkit = require(path.join(root, 'packages/testkit/dist'));
  const contracts = require(path.join(root, 'packages/contracts/dist'));
  const autocannon = require('autocannon');
  const { connect } = fromEvents('@nats-io/transport-node');
  const { Kvm } = fromEvents('@nats-io/kv');

  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
  const EXPERIMENT = process.env.BENCH_EXPERIMENT === '1';
  const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
  const ADMIN_TOKEN = `bench-${randomBytes(32).toString('base64url')}`;
  const VISITOR_ID_KEY = randomBytes(32).toString('hex');
  const CHROME =
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
  const id = randomBytes(4).toString('hex');
  const names = {
    MONGO_DB: `bench_events_${id}`,
    OWNER_REGISTRY_BUCKET: `bench_owners_${id}`,
    EVENTS_STREAM: `BENCH_EVENTS_${id}`,
    EVENTS_SUBJECT_PREFIX: `bench_events_${id}`,
    EVENTS_DEAD_LETTER_SUBJECT: `bench_dlq_${id}`,
    CONSUMER_DURABLE: `bench_writer_${id}`,
  };

  const children = [];
  const say = (msg) => console.error(`[bench] ${msg}`);
  let stopping = false;
  let servers;
  const startChild = (name, args, env) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code, signal) => {
      if (!stopping) say(`${name} exited early (${signal ?? code})`);
    });
    children.push(child);
    return child;
  };
  const stopAll = async (code) => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    if (servers) await servers.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(130));

  // Rounds send a fixed number of requests (sized from the warm-up rate to last about
  // BENCH_SECONDS) rather than running for a fixed time: a timed run abandons the requests in
  // flight when the clock runs out, and those are stored without the 200 being counted.
  // autocannon notices the last response on its sampling tick: a short tick keeps the timing exact
  const run = (opts, amount) =>
    new Promise((resolve, reject) => {
      autocannon(
        { connections: CONNECTIONS, amount, sampleInt: 20, timeout: 10, headers: { 'user-agent': CHROME }, ...opts },
        (err, result) => (err ? reject(err) : resolve({ ...result, seconds: result.duration })),
      );
    });
  const rateOf = (r) => r.requests.total / r.seconds;
  const eventsEnv = (roles, port) => ({
    NODE_ENV: 'production',
    EVENTS_ROLES: roles,
    EVENTS_PORT: String(port),
    MONGO_URL: servers.mongoUrl,
    NATS_URL: servers.natsUrl,
    ADMIN_TOKEN,
    VISITOR_ID_KEY,
    LOG_LEVEL: 'error',
    ...FLOOD_LIMITS_OFF,
    ...names,
  });

  try {
    servers = await testkit.startTestServers();
    say(`data stores: ${servers.source}`);

    // the owner must be in the registry, as management would have put it
    const owner = `${Date.now()}`;
    const nc = await connect({ servers: servers.natsUrl });
    const kv = await new Kvm(nc).create(names.OWNER_REGISTRY_BUCKET, { history: 1 });
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

    const [ingestPort, barePort, readPort] = [
      await testkit.freePort(),
      await testkit.freePort(),
      await testkit.freePort(),
    ];
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the ingest process
    startChild(
      'events ingest',
      [...cpuProfileArgs(), path.join(root, 'services/events/dist/main.js')],
      eventsEnv('ingest', ingestPort),
    );
    startChild('bare node:http', [fileURLToPath(import.meta.url), '--bare', String(barePort)], {});
    await waitFor('ingest ready', async () => (await fetch(`http://127.0.0.1:${ingestPort}/readyz`)).ok, 30_000);
    await waitFor('bare server', async () => (await fetch(`http://127.0.0.1:${barePort}/`)).ok, 10_000);
    // BENCH_EXPERIMENT=1: the minimal group-commit server (its events go to another owner, so the check below still holds)
    const experimentPort = EXPERIMENT ? await testkit.freePort() : 0;
    if (EXPERIMENT) {
      const args = [
        path.join(root, 'scripts/bench/group-commit-experiment.mjs'),
        String(experimentPort),
        servers.natsUrl,
        `${names.EVENTS_SUBJECT_PREFIX}.batch`,
        `${Number(owner) + 1}`,
      ];
      startChild('group-commit experiment', args, {});
      await waitFor(
        'experiment',
        async () => (await fetch(`http://127.0.0.1:${experimentPort}/x?name=warm`)).ok,
        10_000,
      );
    }

    const query = `owner_id=${owner}&name=impression&content_id=article-1&url=https%3A%2F%2Fpub.example%2Fa&utm_source=bench`;
    const variants = [
      { name: 'pixel (ingest role, JetStream ack)', opts: { url: `http://127.0.0.1:${ingestPort}/v1/v.gif?${query}` } },
      { name: 'bare node:http, same GIF', opts: { url: `http://127.0.0.1:${barePort}/v1/v.gif?${query}` } },
      ...(EXPERIMENT
        ? [
            {
              name: 'minimal group-commit experiment',
              opts: { url: `http://127.0.0.1:${experimentPort}/v1/v.gif?${query}` },
            },
          ]
        : []),
    ];
    say(`warm-up, then ${ROUNDS} rounds x ${variants.length} variants x ${SECONDS} s, ${CONNECTIONS} connections`);
    let acknowledged = 0;
    const amounts = [];
    for (const v of variants) {
      const warm = await run(v.opts, 5000);
      if (v === variants[0]) acknowledged += warm['2xx'];
      amounts.push(Math.max(1000, Math.round(rateOf(warm) * SECONDS)));
    }

    const results = variants.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, v] of variants.entries()) {
        const r = await run(v.opts, amounts[i]);
        const failed = r.errors + r.timeouts + r.non2xx;
        if (failed > 0) throw new Error(`${v.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
        if (i === 0) acknowledged += r['2xx'];
        results[i].push({ rps: rateOf(r), p99: r.latency.p99, p50: r.latency.p50 });
        amounts[i] = Math.max(1000, Math.round(rateOf(r) * SECONDS));
        say(
          `round ${round + 1} ${v.name}: ${r.requests.total} requests in ${r.seconds.toFixed(1)} s = ${rateOf(r).toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`,
        );
      }
    }

    // group commit at work: events per JetStream message over the whole run
    const ingestMetrics = await (await fetch(`http://127.0.0.1:${ingestPort}/metrics`)).text();
    const metricValue = (name) =>
      Number(
        ingestMetrics
          .split('\n')
          .find((l) => l.startsWith(name))
          ?.split(' ')
          .pop() ?? NaN,
      );
    const batchSum = metricValue('events_ingest_batch_events_sum');
    const batchCount = metricValue('events_ingest_batch_events_count');
    say(
      `group commit: ${batchSum} events in ${batchCount} messages (${(batchSum / batchCount).toFixed(1)} per message)`,
    );

    // drain the stream into MongoDB and ask the report what it counts
    say(`verifying: ${acknowledged} acknowledged pixel hits must be reported`);
    startChild(
      'events consumer+reporting',
      [path.join(root, 'services/events/dist/main.js')],
      eventsEnv('consumer,reporting', readPort),
    );
    const api = `http://127.0.0.1:${readPort}`;
    await waitFor('consumer+reporting ready', async () => (await fetch(`${api}/readyz`)).ok, 30_000);
    const keyRes = await fetch(`${api}/admin/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_ids: [owner] }),
    });
    const { api_key } = await keyRes.json();
    const reported = async () => {
      const res = await fetch(`${api}/api/v1/events/?api_key=${encodeURIComponent(api_key)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ owner_id: owner }),
      });
      const rows = await res.json();
      return rows.reduce((sum, row) => sum + row.value, 0);
    };
    const drainStart = Date.now();
    let count = 0;
    await waitFor(
      'the report to count every acknowledged hit',
      async () => (count = await reported()) >= acknowledged,
      300_000,
    );
    const drainSeconds = (Date.now() - drainStart) / 1000;
    await new Promise((r) => setTimeout(r, 2000));
    count = await reported();
    if (count !== acknowledged) throw new Error(`report counts ${count}, but ${acknowledged} hits were acknowledged`);
    say(`report counts ${count} = acknowledged hits (drained in ${drainSeconds.toFixed(1)} s)`);

    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const summary = variants.map((v, i) => ({
      name: v.name,
      rps: results[i].reduce((a, r) => a + r.rps, 0) / results[i].length,
      range: [Math.min(...results[i].map((r) => r.rps)), Math.max(...results[i].map((r) => r.rps))],
      p50: median(results[i].map((r) => r.p50)),
      p99: median(results[i].map((r) => r.p99)),
    }));
    const ratio = summary[0].rps / summary[1].rps;
    // each round's pixel run next to the bare run right after it: robust against load that drifts
    const pairRatios = results[0].map((r, i) => r.rps / results[1][i].rps);
    console.log(
      `\n${ROUNDS} rounds x ~${SECONDS} s per variant, ${CONNECTIONS} connections, alternating; req/s = mean of rounds (min-max), p50/p99 = median of rounds\n`,
    );
    console.log('| variant | req/s (min-max) | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    for (const s of summary)
      console.log(
        `| ${s.name} | ${s.rps.toFixed(0)} (${s.range[0].toFixed(0)}-${s.range[1].toFixed(0)}) | ${s.p50} | ${s.p99} |`,
      );
    console.log(
      `\npixel / bare = ${ratio.toFixed(2)} (target >= 0.65); per round: ${pairRatios.map((x) => x.toFixed(2)).join(', ')} (median ${median(pairRatios).toFixed(2)})`,
    );
    if (EXPERIMENT) {
      const rounds = results[2].map((r, i) => r.rps / results[1][i].rps);
      console.log(
        `experiment / bare = ${(summary[2].rps / summary[1].rps).toFixed(2)} (per round ${rounds.map((x) => x.toFixed(2)).join(', ')}); pixel / experiment = ${(summary[0].rps / summary[2].rps).toFixed(2)}`,
      );
    }
    console.log(
      `failed requests: 0; acknowledged ${acknowledged}, reported ${count}; ${(batchSum / batchCount).toFixed(1)} events per JetStream message on average`,
    );
    await stopAll(ratio >= 0.65 ? 0 : 2);
  } catch (err) {
    console.error(err);
    await stopAll(1);
  }
}
