import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, isPortOpen } from './ports';
import { repoRoot } from './repo-root';

/** `pnpm start` (scripts/start-local.mjs) on free ports with a temporary data directory. */
interface Ports {
  nats: number;
  mongo: number;
  management: number;
  events: number;
}

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

let dir: string;
let ports: Ports;
const runs: Run[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'start-local-'));
  ports = { nats: await freePort(), mongo: await freePort(), management: await freePort(), events: await freePort() };
});
afterEach(async () => {
  for (const run of runs.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      process.kill(-run.child.pid!, 'SIGTERM');
      await run.exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function startLocal(): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOCAL_DATA_DIR: dir,
    LOCAL_NATS_PORT: String(ports.nats),
    LOCAL_MONGO_PORT: String(ports.mongo),
    MANAGEMENT_PORT: String(ports.management),
    EVENTS_PORT: String(ports.events),
    MONGO_STAND_IN_HEAP: '256m',
    LOG_LEVEL: 'info',
  };
  // the stores come from start-local itself, not from the test run
  delete env.NATS_URL;
  delete env.MONGO_URL;
  delete env.ADMIN_TOKEN;
  // its own process group, like a terminal's foreground job: Ctrl-C is a SIGINT to the group
  const child = spawn(process.execPath, [path.join(repoRoot(), 'scripts', 'start-local.mjs')], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run = { child, output: () => out, exited };
  runs.push(run);
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops the services')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start-local did not become ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return run;
}

async function api(method: string, p: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${ports.management}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

async function allClosed(): Promise<boolean> {
  const open = await Promise.all(Object.values(ports).map((p) => isPortOpen(p)));
  return open.every((o) => !o);
}

async function waitUntil(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('pnpm start (scripts/start-local.mjs)', () => {
  test('when Ctrl-C reaches it and its services, then the services stop before the stores, without broker errors, exit 0, and a restart keeps the data', async () => {
    const first = await startLocal();
    expect(first.output()).toContain(`data lives in`);
    expect(first.output()).toMatch(/pnpm start --fresh/);
    const adminToken = readFileSync(path.join(dir, 'admin-token'), 'utf8').trim();
    const owner = await api('POST', '/admin/v1/accounts', adminToken, {
      email: `owner-${Date.now()}@example.com`,
      password: 'long enough password',
    });
    expect(owner.status).toBe(201);
    const created = await api('POST', '/api/v3/campaign/', owner.body.api_token, {
      name: 'Kept',
      start_date: '2026-03-01',
      end_date: '2026-05-31',
      category: 'Technology',
    });
    expect(created.status).toBe(200);

    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited).toBe(0);
    const log = first.output();
    const stopped = log.indexOf('stopping management and events');
    expect(stopped).toBeGreaterThan(0);
    expect(log.indexOf('stopping nats-server')).toBeGreaterThan(stopped);
    // both services drained completely while the stores still ran
    const beforeStores = log.slice(0, log.indexOf('stopping MongoDB stand-in'));
    expect(beforeStores.match(/"message":"shutdown complete"/g)).toHaveLength(2);
    expect(log).not.toMatch(/"level":"error"|nats connection status|server shutdown|TIMEOUT|disconnect/i);
    expect(await allClosed()).toBe(true);

    const second = await startLocal();
    const campaigns = await api('GET', '/api/v3/campaign/', owner.body.api_token);
    expect(campaigns.status).toBe(200);
    expect(campaigns.body.map((c: { name: string }) => c.name)).toEqual(['Kept']);
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await second.exited).toBe(0);
  }, 180000);

  test('when it is killed with -9, then its watchdogs stop the stores and the services', async () => {
    const run = await startLocal();
    process.kill(run.child.pid!, 'SIGKILL');
    await run.exited;
    await waitUntil(allClosed, 30000, 'every port closed');
  }, 120000);
});
