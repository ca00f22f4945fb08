#!/usr/bin/env node
// `pnpm bench:management`: management API throughput and p99, measured side by side in one run.
// Starts the built service (services/management/dist/main.js) and a bare Express app (one route,
// no I/O) as child processes, against local NATS + the MongoDB stand-in from the testkit (or
// MONGO_URL / NATS_URL when set), then alternates the scenarios round by round (A B C A B C ...)
// so machine noise hits all of them alike. Loopback only; bounded: BENCH_ROUNDS x BENCH_SECONDS
// per scenario (default 4 x 5 s) plus a short warm-up. BENCH_COMPARE_MAIN=<another build's
// services/management/dist/main.js> runs that build too and measures it in the same rounds.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const autocannon = require('autocannon');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CONTENT_ITEMS = 100;
// Optional: another build of the service (e.g. the previous commit's dist/main.js) measured in the same run.
const COMPARE_MAIN = process.env.BENCH_COMPARE_MAIN;
const ADMIN_TOKEN = `bench-${randomBytes(32).toString('hex')}`;

const children = [];
const say = (msg) => console.error(`[bench] ${msg}`);

function startChild(name, args, env) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) say(`${name} exited early (${signal ?? code})`);
  });
  children.push(child);
  return child;
}

// The baseline: the same framework and process style, one route, no I/O, a JSON body of similar size.
const BARE_APP = `
const express = require(${JSON.stringify(require.resolve('express', { paths: [path.join(root, 'services/management')] }))});
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const body = { name: 'Spring sale', token: 'x'.repeat(43), start_date: '2024-03-01', end_date: '2024-03-31', category: 'Other' };
app.get('/bare', (_req, res) => { res.json(body); });
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

async function http(method, url, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function run(opts, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: seconds, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

let stopping = false;
let servers;
async function stop(code) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  if (servers) await servers.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(130));

async function startManagement(name, main) {
  const port = await testkit.freePort();
  startChild(name, [main], {
    NODE_ENV: 'production',
    MANAGEMENT_PORT: String(port),
    MONGO_URL: servers.mongoUrl,
    NATS_URL: servers.natsUrl,
    MONGO_DB: `bench_${randomBytes(4).toString('hex')}`,
    OWNER_REGISTRY_BUCKET: `bench_owners_${randomBytes(4).toString('hex')}`,
    ADMIN_TOKEN,
    TOKEN_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    TOKEN_LOOKUP_KEY: randomBytes(32).toString('base64'),
    // a few tokens drive the whole run: lift their rate limit so the service, not the limiter, is measured
    API_RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'error',
  });
  const api = `http://127.0.0.1:${port}`;
  await waitFor(`${api}/readyz ready`, async () => (await fetch(`${api}/readyz`)).ok, 30_000, 200);
  return api;
}

const addTimes = [];

/** Creates spread over this many accounts, so none reaches the campaign quota (1000 per user) during a run. */
const CREATE_ACCOUNTS = 100;

/** An account and a campaign holding CONTENT_ITEMS items; the two management scenarios against `api`. */
async function managementScenarios(label, api) {
  const newAccount = (i) =>
    http('POST', `${api}/admin/v1/accounts`, {
      token: ADMIN_TOKEN,
      body: { email: `bench-${Date.now()}-${i}@example.com`, password: 'bench password 1' },
    });
  const owner = await newAccount('reader');
  const creators = [];
  for (let i = 0; i < CREATE_ACCOUNTS; i += 10)
    creators.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => newAccount(i + j)))));
  let turn = 0;
  const nextCreator = () => `Bearer ${creators[turn++ % creators.length].api_token}`;
  const campaignBody = {
    name: 'Spring sale',
    start_date: '2024-03-01',
    end_date: '2030-12-31',
    category: 'Food / Drink',
    brand: 'Acme',
    reach: 10000,
    target_geography: ['Germany', 'France'],
    objective: 'Reach',
  };
  const campaign = await http('POST', `${api}/api/v3/campaign/`, { token: owner.api_token, body: campaignBody });
  // TEST-NET-1 URLs: the title fetcher refuses them without any network traffic.
  const addsStarted = performance.now();
  for (let i = 0; i < CONTENT_ITEMS; i++) {
    await http('POST', `${api}/api/v3/campaign/${campaign.token}/content/`, {
      token: owner.api_token,
      body: { url: `https://192.0.2.${1 + (i % 250)}/article/${i}?utm_source=bench`, content_type: 'Article' },
    });
  }
  addTimes.push(
    `${label || 'management '}add content: ${((performance.now() - addsStarted) / CONTENT_ITEMS).toFixed(1)} ms per item (${CONTENT_ITEMS} sequential adds during set-up)`,
  );
  const read = await http('GET', `${api}/api/v3/campaign/${campaign.token}/`, { token: owner.api_token });
  if (read.content.length !== CONTENT_ITEMS)
    throw new Error(`expected ${CONTENT_ITEMS} items, got ${read.content.length}`);
  const auth = { authorization: `Bearer ${owner.api_token}` };
  return [
    {
      name: `${label}POST /api/v3/campaign/ (create)`,
      opts: {
        url: api,
        requests: [
          {
            method: 'POST',
            path: '/api/v3/campaign/',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(campaignBody),
            setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: nextCreator() } }),
          },
        ],
      },
    },
    {
      name: `${label}GET /api/v3/campaign/:token/ (${CONTENT_ITEMS} items)`,
      opts: { url: `${api}/api/v3/campaign/${campaign.token}/`, headers: auth },
    },
  ];
}

async function main() {
  servers = await testkit.startTestServers();
  say(`data stores: ${servers.source}`);
  const barePort = await testkit.freePort();
  startChild('bare express', ['-e', BARE_APP], { PORT: String(barePort) });
  const bare = `http://127.0.0.1:${barePort}`;
  const [api, compareApi] = await Promise.all([
    startManagement('management', path.join(root, 'services/management/dist/main.js')),
    COMPARE_MAIN ? startManagement('compared build', path.resolve(COMPARE_MAIN)) : undefined,
    waitFor(`${bare}/bare ready`, async () => (await fetch(`${bare}/bare`)).ok, 10_000, 200),
  ]);

  const scenarios = [
    ...(await managementScenarios('', api)),
    ...(compareApi ? await managementScenarios('[compared] ', compareApi) : []),
    { name: 'bare Express GET (no I/O)', opts: { url: `${bare}/bare` } },
  ];

  say(`warm-up, then ${ROUNDS} rounds x ${scenarios.length} scenarios x ${SECONDS} s, ${CONNECTIONS} connections`);
  for (const s of scenarios) await run(s.opts, 2);
  const results = scenarios.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of scenarios.entries()) {
      const r = await run(s.opts, SECONDS);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results[i].push({ rps: r.requests.average, p99: r.latency.p99 });
      say(`round ${round + 1} ${s.name}: ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms`);
    }
  }

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const summary = scenarios.map((s, i) => ({
    name: s.name,
    rps: results[i].reduce((a, r) => a + r.rps, 0) / results[i].length,
    rpsRange: [Math.min(...results[i].map((r) => r.rps)), Math.max(...results[i].map((r) => r.rps))],
    p99: median(results[i].map((r) => r.p99)),
  }));
  const baseline = summary[summary.length - 1];
  console.log(
    `\n${ROUNDS} rounds x ${SECONDS} s per scenario, ${CONNECTIONS} connections, alternating; req/s = mean of rounds (min-max), p99 = median of rounds\n`,
  );
  console.log('| scenario | req/s (min-max) | p99 ms | req/s vs bare Express |');
  console.log('|---|---|---|---|');
  for (const s of summary) {
    console.log(
      `| ${s.name} | ${s.rps.toFixed(0)} (${s.rpsRange[0].toFixed(0)}-${s.rpsRange[1].toFixed(0)}) | ${s.p99} | ${(s.rps / baseline.rps).toFixed(2)} |`,
    );
  }
  console.log(`\n${addTimes.join('\n')}`);
}

main().then(
  () => stop(0),
  (err) => {
    console.error(err);
    void stop(1);
  },
);
