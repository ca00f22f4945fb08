#!/usr/bin/env node
// `pnpm bench:cluster`: the events service on a local 3-node JetStream cluster (testkit
// startNatsCluster; R3 events stream and R3 owner registry bucket; NATS_URL = every node) under
// steady pixel load while a follower of the events stream and then its leader are killed with -9
// and brought back. Prints the share of pixel requests answered 200 (the failover goal: at
// least 99 %), the longest stretch without a 200, what was done when, the service's own warnings
// and 503 reasons over time, and checks that every acknowledged event is reported exactly once.
// The same scenario as services/events/test/cluster/cluster-failover.int.test.ts, longer. The
// harness is test code: `pnpm bench:cluster` compiles it apart from the production build
// (services/events/tsconfig.bench.json, into services/events/dist-test/).
// Settings: BENCH_RATE (req/s, 300), BENCH_PHASE_SECONDS (10), BENCH_PUBLISH_TIMEOUT_MS (the
// service's PUBLISH_TIMEOUT_MS; its default otherwise). Needs the MongoDB stand-in (started
// here) or MONGO_URL. Loopback only.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const { runFailoverScenario } = require(path.join(root, 'services/events/dist-test/cluster/failover-scenario.js'));

const RATE = Number(process.env.BENCH_RATE ?? 300);
const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 10);
// the service's publish timeout (its default otherwise): how long a pixel hit may wait out an election
const serviceEnv = process.env.BENCH_PUBLISH_TIMEOUT_MS
  ? { PUBLISH_TIMEOUT_MS: process.env.BENCH_PUBLISH_TIMEOUT_MS }
  : {};
const say = (msg) => console.error(`[bench] ${msg}`);
const seconds = (ms) => (ms / 1000).toFixed(1);

const mongo = process.env.MONGO_URL ? undefined : await testkit.startMongoStandIn({ heap: '1g' });
let failed = false;
try {
  say(
    `nats-server ${testkit.natsServerVersion()}, ${RATE} pixel req/s, ${PHASE_SECONDS} s per phase${serviceEnv.PUBLISH_TIMEOUT_MS ? `, PUBLISH_TIMEOUT_MS=${serviceEnv.PUBLISH_TIMEOUT_MS}` : ''}`,
  );
  const r = await runFailoverScenario({
    mongoUrl: process.env.MONGO_URL ?? mongo.url,
    rate: RATE,
    phaseMs: PHASE_SECONDS * 1000,
    serviceEnv,
    log: say,
  });
  const s = r.summary;
  console.log(
    `\n${s.total} pixel requests at ${RATE}/s over ${seconds(r.actions.at(-1).atMs + PHASE_SECONDS * 1000)} s\n`,
  );
  console.log(
    '| answered 200 | statuses | longest stretch without a 200 | pixel latency p99 / max | acknowledged | lost | counted twice | drain after load |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const statuses = Object.entries(s.byStatus)
    .map(([k, v]) => `${k === '0' ? 'no answer' : k}: ${v}`)
    .join(', ');
  const outage =
    s.longestOutageAtMs < 0 ? 'none' : `${seconds(s.longestOutageMs)} s (from ${seconds(s.longestOutageAtMs)} s)`;
  console.log(
    `| ${(s.okShare * 100).toFixed(2)} % | ${statuses} | ${outage} | ${s.p99LatencyMs} / ${s.maxLatencyMs} ms | ${r.acknowledged} | ${r.lost.length} | ${r.duplicated.length} | ${seconds(r.drainMs)} s |`,
  );
  console.log('\nwhat was done (s since the load began):');
  for (const a of r.actions) console.log(`  ${seconds(a.atMs).padStart(6)}  ${a.what}`);
  console.log('\nthe service log (level, count, first-last s, what):');
  for (const g of r.serviceLog)
    console.log(
      `  ${g.level.padEnd(5)} ${String(g.count).padStart(6)}  ${seconds(g.firstMs).padStart(6)}-${seconds(g.lastMs).padEnd(6)}  ${g.what}`,
    );
  failed = r.lost.length > 0 || r.duplicated.length > 0;
  if (failed)
    console.log(
      `\nFAILED: lost ${r.lost.slice(0, 10).join(', ')}; counted twice ${r.duplicated.slice(0, 10).join(', ')}`,
    );
  if (s.okShare < 0.99) console.log(`\nbelow the failover goal of 99 %`);
} catch (err) {
  console.error(err);
  failed = true;
} finally {
  await mongo?.stop();
}
process.exit(failed ? 1 : 0);
