#!/usr/bin/env node
// `pnpm start`: the whole system on this machine. Starts local NATS (JetStream) and the
// MongoDB-compatible stand-in when NATS_URL / MONGO_URL are unset, then the management and events
// services, and prints where everything listens. Ctrl-C stops it all.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));

const env = { ...process.env };
const started = [];
const children = [];
const say = (msg) => console.log(`[start] ${msg}`);

async function portOrFree(preferred) {
  return (await testkit.isPortOpen(preferred)) ? testkit.freePort() : preferred;
}

async function main() {
  if (!env.NATS_URL) {
    const store = path.join(root, '.local', 'nats');
    mkdirSync(store, { recursive: true });
    const nats = await testkit.startNatsServer({ port: await portOrFree(4222), storeDir: store });
    started.push(nats);
    env.NATS_URL = nats.url;
    say(`started nats-server -js at ${nats.url} (store ${store})`);
  }
  if (!env.MONGO_URL) {
    const mongo = await testkit.startMongoStandIn({ port: await portOrFree(27017) });
    started.push(mongo);
    env.MONGO_URL = mongo.url;
    say(`started the in-memory MongoDB stand-in at ${mongo.url} (data is lost on exit; set MONGO_URL for a real MongoDB)`);
  }
  if (!env.ADMIN_TOKEN) {
    env.ADMIN_TOKEN = `dev-${randomBytes(18).toString('base64url')}`;
    say(`ADMIN_TOKEN was unset; generated one for this run: ${env.ADMIN_TOKEN}`);
  }
  env.NODE_ENV ??= 'development';

  const services = [
    { name: 'management', main: 'services/management/dist/main.js', port: env.MANAGEMENT_PORT ?? '3000' },
    { name: 'events', main: 'services/events/dist/main.js', port: env.EVENTS_PORT ?? '3001' },
  ];
  for (const svc of services) {
    if (!existsSync(path.join(root, svc.main))) {
      say(`${svc.name}: not built (${svc.main} missing), skipped`);
      continue;
    }
    const child = spawn(process.execPath, [path.join(root, svc.main)], { env, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      say(`${svc.name} exited (${signal ?? code})`);
      if (!stopping) void stop(code ?? 1);
    });
    children.push(child);
    await testkit.waitForPort(Number(svc.port), 30000);
    say(`${svc.name} listening on http://127.0.0.1:${svc.port} (readiness: /readyz)`);
  }
  say('ready. Bootstrap an account with:');
  say(`  curl -s -X POST http://127.0.0.1:${services[0].port}/admin/v1/accounts -H "Authorization: Bearer ${env.ADMIN_TOKEN}" -H 'Content-Type: application/json' -d '{"email":"owner@example.com","password":"change me please"}'`);
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map((c) => new Promise((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', resolve);
      c.kill('SIGTERM');
    })),
  );
  for (const s of started.reverse()) await s.stop();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
main().catch(async (err) => {
  console.error(`[start] failed: ${err instanceof Error ? err.message : err}`);
  await stop(1);
});
