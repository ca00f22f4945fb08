// The built reporting feature served on loopback the way the events service mounts it, for the
// benches that time reports over HTTP (bench:report, bench:peer, bench:local-capacity).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const platform = require(path.join(root, 'packages/platform/dist'));
const express = require(require.resolve('express', { paths: [path.join(root, 'services/events')] }));

/** The reporting feature of a built `services/events/dist` (this checkout's unless `distDir` names another). */
export function reportingBuild(distDir = path.join(root, 'services/events/dist')) {
  return {
    loadEventsConfig: require(path.resolve(distDir, 'config')).loadEventsConfig,
    createReportingFeature: require(path.resolve(distDir, 'reporting/reporting-feature')).createReportingFeature,
  };
}

/** A registry that knows no campaign (a report or scorecard naming one is a 400). */
const NO_CAMPAIGNS = { isReady: () => true, campaign: () => undefined };

/** The campaign registry's lookup over these records (as the events service's mirror answers it). */
export function campaignLookup(records) {
  return {
    isReady: () => true,
    campaign: (ownerId, token) => records.find((r) => r.owner_id === ownerId && r.token === token),
  };
}

/** Serves `build`'s reporting feature over `db` on a free loopback port (`env`: more settings); `{server, base}`. */
export async function startReportingApp({
  db,
  mongoUrl,
  adminToken,
  logger,
  name,
  build = reportingBuild(),
  env = {},
  campaigns,
}) {
  const config = build.loadEventsConfig({
    NODE_ENV: 'production',
    // the reporting role alone: production refuses the ingest role without its visitor key
    EVENTS_ROLES: 'reporting',
    MONGO_URL: mongoUrl,
    ADMIN_TOKEN: adminToken,
    REPORT_RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
    ...env,
  });
  const registry = platform.createRegistry(name);
  const feature = await build.createReportingFeature({
    db,
    logger,
    metrics: registry,
    config,
    campaigns: campaigns ?? NO_CAMPAIGNS,
  });
  const app = express();
  app.use(platform.requestContext(logger));
  app.use(...feature.routers);
  app.use(platform.notFoundHandler);
  app.use(platform.errorMiddleware(logger));
  const server = http.createServer(app);
  const port = await platform.listen(server, 0, '127.0.0.1');
  return { server, base: `http://127.0.0.1:${port}`, pageCounts: () => pageCounts(registry) };
}

/**
 * The reporting role as deployed: a Node process of its own (the manifests run it with
 * `--max-semi-space-size=64`: DEPLOYED_NODE_FLAGS) serving `dist`'s reporting feature over the
 * database `dbName` at `mongoUrl` (`env`: more settings; `campaigns`: the registry's records it
 * knows), so none of the bench's own work (loading, the client's parsing, another system's
 * answers) runs on its heap or in its pauses. Resolves to `{ base, stop, peakMiB }` once it
 * listens; `peakMiB()` is its peak resident memory (Linux), undefined elsewhere.
 */
export function serveReportingApart({
  mongoUrl,
  adminToken,
  dist = path.join(root, 'services/events/dist'),
  dbName,
  name,
  flags = DEPLOYED_NODE_FLAGS,
  env = {},
  campaigns = [],
}) {
  const here = (p) => JSON.stringify(pathToFileURL(path.join(root, p)).href);
  const script = `
const { campaignLookup, reportingBuild, startReportingApp } = await import(${here('scripts/bench/reporting-app.mjs')});
const { default: platform } = await import(${here('packages/platform/dist/index.js')});
const logger = platform.createLogger({ service: ${JSON.stringify(name)}, level: 'error' });
const handle = await platform.connectMongo(process.env.MONGO_URL, ${JSON.stringify(dbName)});
const app = await startReportingApp({ db: handle.db, mongoUrl: process.env.MONGO_URL, adminToken: process.env.BENCH_ADMIN_TOKEN, logger, name: ${JSON.stringify(name)}, build: reportingBuild(${JSON.stringify(dist)}), campaigns: campaignLookup(${JSON.stringify(campaigns)}), env: ${JSON.stringify(env)} });
process.stdout.write(app.base + '\\n');
`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, MONGO_URL: mongoUrl, BENCH_ADMIN_TOKEN: adminToken },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n'))
        resolve({ base: out.trim(), stop: () => child.kill('SIGKILL'), peakMiB: () => peakResidentMiB(child.pid) });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the ${name} server exited with ${code}`)));
  });
}

/** The Node flags the deployed reporting process runs with (deploy/k8s/base/events-reporting.yaml, docker-compose.yml). */
const DEPLOYED_NODE_FLAGS = ['--max-semi-space-size=64'];

/** A process's peak resident memory in MiB (Linux: VmHWM), or undefined elsewhere. */
function peakResidentMiB(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rollup pages this app's reports took from its decoded-page cache and read from the store
 * so far (events_report_pages_total), { cache, store }; zeros for a build without that metric.
 */
async function pageCounts(registry) {
  const metric = registry.getSingleMetric('events_report_pages_total');
  const out = { cache: 0, store: 0 };
  if (!metric) return out;
  for (const v of (await metric.get()).values) if (v.labels.source in out) out[v.labels.source] = v.value;
  return out;
}

/** POSTs JSON and returns the parsed answer; any status of 300 or more throws. */
export async function postJson(url, body, headers = {}) {
  return (await postJsonTimed(url, body, headers)).json;
}

/**
 * `postJson`, timed: `receivedMs` from the call until the answer's last byte is in (its bytes
 * are what a server answers with, as an engine's time ends with its formatted answer), and
 * `parsedMs` until the client has parsed them too (the client's own work, on top).
 */
export async function postJsonTimed(url, body, headers = {}) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const bytes = await res.arrayBuffer();
  const t1 = process.hrtime.bigint();
  const json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  const t2 = process.hrtime.bigint();
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return { json, receivedMs: Number(t1 - t0) / 1e6, parsedMs: Number(t2 - t0) / 1e6 };
}

/**
 * Reports of `owner` through `app` with a fresh API key scoped to it: `report(body, base = app.base,
 * route = '')`, where route `scorecard` asks the campaign scorecard instead of a report;
 * `report.timed(body)` answers `postJsonTimed`'s `{ json, receivedMs, parsedMs }`.
 */
export async function ownerReports(app, adminToken, owner) {
  const key = await postJson(
    `${app.base}/admin/v1/api-keys`,
    { owner_ids: [owner] },
    { authorization: `Bearer ${adminToken}` },
  );
  const url = (base, route) => `${base}/api/v1/events/${route ? `${route}/` : ''}?api_key=${key.api_key}`;
  const report = (body, base = app.base, route = '') => postJson(url(base, route), { owner_id: owner, ...body });
  report.timed = (body, base = app.base, route = '') => postJsonTimed(url(base, route), { owner_id: owner, ...body });
  return report;
}
