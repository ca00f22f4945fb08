// The built reporting feature served on loopback the way the events service mounts it, for the
// benches that time reports over HTTP (bench:report, bench:peer, bench:local-capacity).
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Reports of `owner` through `app` with a fresh API key scoped to it: `report(body, base = app.base,
 * route = '')`, where route `scorecard` asks the campaign scorecard instead of a report.
 */
export async function ownerReports(app, adminToken, owner) {
  const key = await postJson(
    `${app.base}/admin/v1/api-keys`,
    { owner_ids: [owner] },
    { authorization: `Bearer ${adminToken}` },
  );
  return (body, base = app.base, route = '') =>
    postJson(`${base}/api/v1/events/${route ? `${route}/` : ''}?api_key=${key.api_key}`, { owner_id: owner, ...body });
}
