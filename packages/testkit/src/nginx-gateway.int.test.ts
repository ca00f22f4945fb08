import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './ports';
import { repoRoot } from './repo-root';

/**
 * The compose gateway (deploy/nginx) run by a real nginx: the shipped files, with only the
 * upstream host names, listen ports and the include path rewritten to this machine.
 */
const upstreams: Record<string, http.Server> = {};
let nginx: ChildProcess;
let dir: string;
const ports = { management: 0, events: 0 };

function stub(name: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ upstream: name, url: req.url }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  if (spawnSync('nginx', ['-v']).status !== 0)
    throw new Error('nginx is not installed: apt-get install nginx (.ci/run does)');
  for (const name of ['events-ingest:3001', 'events-reporting:3001', 'management:3000'])
    upstreams[name] = await stub(name.split(':')[0]!);
  ports.management = await freePort();
  ports.events = await freePort();
  dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-'));
  const confDir = path.join(dir, 'conf.d');
  mkdirSync(confDir);
  const source = path.join(repoRoot(), 'deploy', 'nginx');
  for (const file of readdirSync(source)) {
    let text = readFileSync(path.join(source, file), 'utf8');
    for (const [hostPort, server] of Object.entries(upstreams))
      text = text.replaceAll(`server ${hostPort};`, `server 127.0.0.1:${(server.address() as AddressInfo).port};`);
    text = text
      .replace(/listen 3000;/, `listen 127.0.0.1:${ports.management};`)
      .replace(/listen 3001;/, `listen 127.0.0.1:${ports.events};`)
      .replace(/resolver [^;]+;/, '')
      .replaceAll('/etc/nginx/conf.d/', `${confDir}/`);
    writeFileSync(path.join(confDir, file), text);
  }
  const asRoot = process.getuid?.() === 0 ? 'user root;' : '';
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `${asRoot} daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
     events { worker_connections 4096; }
     http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
       # only here: a test names the client address it speaks for (every request comes from 127.0.0.1)
       set_real_ip_from 127.0.0.1; real_ip_header X-Test-Client;
       include ${confDir}/*.conf; }`,
  );
  nginx = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
  await waitForPort(ports.events, 10000);
  await waitForPort(ports.management, 10000);
});

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx.once('exit', r));
    nginx.kill('SIGQUIT');
    await exited;
  }
  for (const s of Object.values(upstreams)) s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = async (port: number, p: string, client?: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, client ? { headers: { 'x-test-client': client } } : {});
  const text = await res.text();
  return {
    status: res.status,
    body: (text.startsWith('{') ? JSON.parse(text) : text) as any,
    retryAfter: res.headers.get('retry-after'),
  };
};

describe('compose gateway (deploy/nginx)', () => {
  test.each([
    ['events', '/v1/v.gif?owner_id=1&name=impression', 'events-ingest'],
    ['events', '/api/v1/events/?api_key=k', 'events-reporting'],
    ['events', '/docs', 'events-reporting'],
    ['management', '/api/v3/campaign/', 'management'],
    ['management', '/docs', 'management'],
  ] as const)('when a client asks %s for %s, then it reaches %s', async (side, p, upstream) => {
    const res = await get(ports[side], p);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ upstream, url: p });
  });

  test.each([
    ['events', '/admin/v1/api-keys'],
    ['events', '/metrics'],
    ['events', '/readyz'],
    ['management', '/admin/v1/accounts'],
    ['management', '/metrics'],
    ['management', '/healthz'],
    ['management', '/api/v1/events/'],
  ] as const)('when a client asks %s for the internal path %s, then 404 in the JSON error shape', async (side, p) => {
    const res = await get(ports[side], p);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  test('when one client sends a burst of reports far above its rate, then the excess gets 429 JSON with Retry-After', async () => {
    const results = await Promise.all(Array.from({ length: 60 }, () => get(ports.events, '/api/v1/events/')));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(20);
    // burst 20 (less what the tests above used) plus what the 10/s rate refills meanwhile
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);
    expect(limited[0]).toEqual({
      status: 429,
      retryAfter: '1',
      body: { error: { code: 'rate_limited', message: expect.any(String) } },
    });
  });

  // 0a bytes (newlines) in the prefix: the gateway's map must match them too
  test('when many addresses of one IPv6 /64 send reports at once, then they share one allowance, while a client of another /64 is served', async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        get(ports.events, '/api/v1/events/', `2001:db8:a0a:a0a:${i.toString(16)}::${(i + 1).toString(16)}`),
      ),
    );
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(20);
    expect((await get(ports.events, '/api/v1/events/', '2001:db8:a0a:a0b::1')).status).toBe(200);
    expect((await get(ports.management, '/api/v3/campaign/', '2001:db8:a0a:a0c::1')).status).toBe(200);
  });

  test('when an IPv4 client also arrives as IPv4-mapped IPv6, then both spellings share its allowance', async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        get(ports.management, '/api/v3/campaign/', i % 2 === 0 ? '192.0.2.9' : '::ffff:192.0.2.9'),
      ),
    );
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(30);
  });

  test('when one client sends a pixel burst within its allowance, then every hit passes', async () => {
    // a client of its own: no earlier burst has used its allowance
    const results = await Promise.all(
      Array.from({ length: 150 }, () => get(ports.events, '/v1/v.gif?owner_id=1&name=impression', '198.51.100.150')),
    );
    expect(results.filter((r) => r.status !== 200 || r.body.upstream !== 'events-ingest')).toEqual([]);
  });

  test('when one client floods the pixel, then the excess still gets the GIF (200, no-store) but never reaches ingest', async () => {
    const hits = await Promise.all(
      Array.from({ length: 400 }, async () => {
        const res = await fetch(`http://127.0.0.1:${ports.events}/v1/v.gif?owner_id=1&name=impression`);
        return {
          status: res.status,
          type: res.headers.get('content-type'),
          cache: res.headers.get('cache-control'),
          size: (await res.arrayBuffer()).byteLength,
        };
      }),
    );
    const gifs = hits.filter((h) => h.type === 'image/gif');
    expect(hits.every((h) => h.status === 200)).toBe(true);
    expect(gifs.length).toBeGreaterThan(100);
    expect(gifs[0]).toEqual({
      status: 200,
      type: 'image/gif',
      cache: 'no-store, no-cache, must-revalidate, private',
      size: 43,
    });
  });
});
