import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort, uniqueName, waitForPort } from '@cm/testkit';
import { TEST_ADMIN_TOKEN, startManagementHarness, type ManagementHarness } from '../test/support/management-harness';

let h: ManagementHarness;
let token: string;

beforeAll(async () => {
  h = await startManagementHarness({ BODY_LIMIT: '4kb' });
  token = (await h.createAccount()).api_token;
});
afterAll(async () => {
  await h.stop();
});

describe('HTTP behaviour shared by every endpoint', () => {
  test('when JSON is malformed, then 400 validation_error and never a 5xx', async () => {
    const res = await h.request('POST', '/api/v3/user/', {
      token,
      body: '{"email": ',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  test('when the body is over the documented limit, then 413 payload_too_large', async () => {
    const res = await h.request('POST', '/api/v3/user/', {
      token,
      body: { email: 'a@example.com', password: 'x'.repeat(5000) },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  test('when the body has an unsupported content type, then 415', async () => {
    const res = await h.request('POST', '/api/v3/user/', { token, body: '<user/>', contentType: 'application/xml' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  test('when the JSON body is an array or a scalar, then 400', async () => {
    expect(
      (await h.request('POST', '/api/v3/user/', { token, body: '[1,2]', contentType: 'application/json' })).status,
    ).toBe(400);
    expect(
      (await h.request('POST', '/api/v3/user/', { token, body: '"x"', contentType: 'application/json' })).status,
    ).toBe(400);
  });

  test('when a __proto__ key is sent, then 400 and nothing is polluted', async () => {
    const res = await h.request('POST', '/api/v3/user/', {
      token,
      body: '{"email":"p@example.com","password":"long enough pw","__proto__":{"admin":true}}',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  test('when a path is unknown, then 404 in the JSON error shape, never HTML', async () => {
    const res = await h.request('GET', '/nope', { token });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.error.code).toBe('not_found');
  });

  test('when the trailing slash is left out or added, then the same endpoint answers', async () => {
    expect((await h.request('GET', '/api/v3/user', { token })).status).toBe(200);
    expect((await h.request('GET', '/api/v3/user/', { token })).status).toBe(200);
  });

  test("when a request arrives, then an X-Request-Id comes back (the caller's when sane)", async () => {
    const res = await h.request('GET', '/api/v3/user/', { token, headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const other = await h.request('GET', '/api/v3/user/', { token, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('operations endpoints', () => {
  test('when probed, then /healthz is 200 and /readyz reports mongo and nats ready', async () => {
    expect((await h.request('GET', '/healthz')).status).toBe(200);
    const ready = await h.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { mongo: 'ok', nats: 'ok' } });
  });

  test('when /metrics is scraped, then Prometheus text with the route latency histogram comes back', async () => {
    await h.request('GET', '/api/v3/user/', { token });
    const res = await fetch(`${h.baseUrl}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/v3\/user"/);
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toMatch(/management_registry_outbox_pending\{[^}]*\} 0/);
    expect(text).toContain('# TYPE management_title_fetches_total counter');
  });
});

describe('process lifecycle', () => {
  test('when SIGTERM arrives during a request, then the request completes and the process exits 0', async () => {
    const port = await freePort();
    const adminToken = TEST_ADMIN_TOKEN;
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        MANAGEMENT_PORT: String(port),
        MONGO_DB: uniqueName('mgmt_sigterm'),
        OWNER_REGISTRY_BUCKET: uniqueName('owners'),
        ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'error',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitForPort(port, 20000);
    const body = JSON.stringify({ email: `sigterm-${Date.now()}@example.com`, password: 'long enough pw' });
    // "100 Continue" says the server has the request's head: the request is in flight when SIGTERM arrives, its body follows
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/admin/v1/accounts',
        headers: {
          authorization: `Bearer ${adminToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      req.once('continue', () => {
        child.kill('SIGTERM');
        req.end(body);
      });
      req.once('response', (res) => res.resume().once('end', () => resolve(res.statusCode)));
      req.once('error', reject);
    });
    expect(status).toBe(201);
    expect(await exited).toBe(0);
  });

  test('when the configuration is invalid, then the process refuses to start with a message', async () => {
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
      env: { ...process.env, MANAGEMENT_PORT: 'not-a-port' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toContain('MANAGEMENT_PORT');
  });
});
