#!/usr/bin/env node
// `pnpm start`: the whole system on this machine. When NATS_URL / MONGO_URL are unset it starts
// local NATS (JetStream) and the MongoDB stand-in (H2 file) with their data under LOCAL_DATA_DIR
// (.local/), then the management and events services, and prints where everything listens.
// `pnpm start --fresh` deletes that data first.
//
// Ctrl-C stops things in order: the services first (they drain while the stores still answer),
// then the stores. The stores run in their own process group, so the terminal's SIGINT never
// reaches them, and under a watchdog, so they still stop when this script is killed outright.
//
// Settings (environment): LOCAL_DATA_DIR (.local), LOCAL_NATS_PORT (4222), LOCAL_MONGO_PORT
// (27017): a busy preferred port is replaced by a free one. MONGO_STAND_IN_HEAP (1g),
// MANAGEMENT_PORT (3000), EVENTS_PORT (3001), ADMIN_TOKEN and VISITOR_ID_KEY (generated once, kept in the data dir).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));

const env = { ...process.env };
const dataDir = path.resolve(root, env.LOCAL_DATA_DIR ?? '.local');
const shownDir = path.relative(process.cwd(), dataDir) || '.';
const fresh = process.argv.includes('--fresh');
const stores = [];
const services = [];
const say = (msg) => console.log(`[start] ${msg}`);

async function portOrFree(preferred) {
  return (await testkit.isPortOpen(preferred)) ? testkit.freePort() : preferred;
}

/** The operator token of this data directory: generated once, so it stays valid across restarts. */
function adminToken() {
  return keptSecret('admin-token', () => `dev-${randomBytes(24).toString('base64url')}`);
}

/** A random secret made once and kept in the data dir, so restarts keep hashing and guarding alike. */
function keptSecret(name, make) {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, `${make()}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function startStores() {
  if (!env.NATS_URL) {
    const storeDir = path.join(dataDir, 'nats');
    mkdirSync(storeDir, { recursive: true });
    const nats = await testkit.startNatsServer({
      port: await portOrFree(Number(env.LOCAL_NATS_PORT ?? 4222)),
      storeDir,
      detached: true,
      watchdog: true,
    });
    stores.push({ name: 'nats-server', server: nats });
    env.NATS_URL = nats.url;
    say(
      `nats-server ${testkit.natsServerVersion()} (JetStream) at ${nats.url}, data in ${path.join(shownDir, 'nats')}`,
    );
  }
  if (!env.MONGO_URL) {
    const file = path.join(dataDir, 'mongo', 'data.mv.db');
    mkdirSync(path.dirname(file), { recursive: true });
    const heap = env.MONGO_STAND_IN_HEAP ?? '1g';
    const mongo = await testkit.startMongoStandIn({
      port: await portOrFree(Number(env.LOCAL_MONGO_PORT ?? 27017)),
      h2File: file,
      heap,
      quiet: false,
      detached: true,
      watchdog: true,
    });
    stores.push({ name: 'MongoDB stand-in', server: mongo });
    env.MONGO_URL = mongo.url;
    say(
      `MongoDB stand-in at ${mongo.url}, data in ${path.join(shownDir, 'mongo', 'data.mv.db')} (heap ${heap}: MONGO_STAND_IN_HEAP; set MONGO_URL for a real MongoDB)`,
    );
    // measured by `pnpm bench:local-capacity` (README, "Local store limits")
    say(
      "the local store holds about 35,000 events a day before today's reports slow past 1 s; for more, set MONGO_URL (a real MongoDB) or use docker compose",
    );
  }
}

async function startServices() {
  const list = [
    { name: 'management', main: 'services/management/dist/main.js', port: (env.MANAGEMENT_PORT ??= '3000') },
    // every role in one process here, the rollup builder's among them: its young generation as deployed (docs/operations.md 7.1)
    {
      name: 'events',
      main: 'services/events/dist/main.js',
      port: (env.EVENTS_PORT ??= '3001'),
      node: ['--max-semi-space-size=64'],
    },
  ];
  for (const svc of list) {
    if (!existsSync(path.join(root, svc.main))) {
      say(`${svc.name}: not built (${svc.main} missing), skipped`);
      continue;
    }
    // under the watchdog too: if this script is killed outright, the services stop with it
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'packages/testkit/dist/watchdog.js'),
        process.execPath,
        ...(svc.node ?? []),
        path.join(root, svc.main),
      ],
      { env, stdio: ['pipe', 'inherit', 'inherit'] },
    );
    child.on('exit', (code, signal) => {
      if (stopping) return;
      say(`${svc.name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    });
    services.push({ name: svc.name, child });
    await waitReady(svc.name, Number(svc.port));
  }
  return list;
}

/** Ready = /readyz 200: the service listens at once and connects in the background (its log says what it waits for). */
async function waitReady(name, port) {
  await testkit.waitUntilReady(`http://127.0.0.1:${port}`, 120_000);
  say(`${name} ready on http://127.0.0.1:${port}`);
}

async function main() {
  if (fresh && existsSync(dataDir)) {
    rmSync(dataDir, { recursive: true, force: true });
    say(`--fresh: deleted ${shownDir}`);
  }
  mkdirSync(dataDir, { recursive: true });
  await startStores();
  env.ADMIN_TOKEN ??= adminToken();
  // the key of vid visitor hashes: kept, so a visitor stays one visitor across restarts
  env.VISITOR_ID_KEY ??= keptSecret('visitor-id-key', () => randomBytes(32).toString('hex'));
  env.NODE_ENV ??= 'development';
  const list = await startServices();
  say(
    `data lives in ${shownDir}/ and survives restarts; start fresh with: pnpm start --fresh (or stop, then rm -rf ${shownDir})`,
  );
  say(`operator token (ADMIN_TOKEN): ${env.ADMIN_TOKEN}`);
  say('ready. Bootstrap an account with:');
  say(
    `  curl -s -X POST http://127.0.0.1:${list[0].port}/admin/v1/accounts -H "Authorization: Bearer ${env.ADMIN_TOKEN}" -H 'Content-Type: application/json' -d '{"email":"owner@example.com","password":"change me please"}'`,
  );
  say('Ctrl-C stops the services, then the stores.');
}

function waitExit(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', resolve);
  });
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  // services first: they finish requests and batches while NATS and MongoDB still answer
  if (services.length > 0) say(`stopping ${services.map((s) => s.name).join(' and ')} ...`);
  await Promise.all(
    services.map(async ({ child }) => {
      child.kill('SIGTERM');
      await waitExit(child);
    }),
  );
  for (const { name, server } of stores.reverse()) {
    say(`stopping ${name} ...`);
    await server.stop();
  }
  say(code === 0 ? 'stopped' : 'stopped after a failure');
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
main().catch(async (err) => {
  console.error(`[start] failed: ${err instanceof Error ? err.message : err}`);
  await stop(1);
});
