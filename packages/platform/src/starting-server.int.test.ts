import winston from 'winston';
import { StartingServer } from './starting-server';

const logger = winston.createLogger({ silent: true });
let boot: StartingServer;
let base: string;

beforeEach(async () => {
  boot = new StartingServer({ logger, holdMs: 300, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  base = `http://127.0.0.1:${await boot.listen(0)}`;
});
afterEach(async () => {
  await boot.close(1000);
});

describe('StartingServer', () => {
  test('when a step is still failing, then /healthz is 200 and /readyz is 503 naming the step and its predecessors', async () => {
    await boot.step('mongo', async () => 'connected');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const nats = boot.step('nats', async () => {
      await gate;
      return 'ok';
    });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      checks: { mongo: 'ok', nats: 'unavailable' },
      waiting_for: 'nats',
    });
    release();
    await nats;
  });

  test('when a request arrives during start-up and the service is ready within the hold time, then the service answers it', async () => {
    const pending = fetch(`${base}/api/thing`);
    await new Promise((r) => setTimeout(r, 50));
    boot.serve((_req, res) => res.end('served'));
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('served');
  });

  test('when the service is not ready within the hold time, then the request gets 503 in the error shape naming what is missing', async () => {
    void boot.step('jetstream', () => new Promise(() => undefined));
    const res = await fetch(`${base}/v1/v.gif?owner_id=1&name=x`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({
      error: { code: 'unavailable', message: 'the service is starting (waiting for jetstream); retry later' },
    });
  });

  test('when a URL is longer than the parser allows, then 414 with the JSON error shape instead of an empty 431', async () => {
    boot.serve((_req, res) => res.end('never'));
    const res = await fetch(`${base}/v1/v.gif?owner_id=1&name=x&pad=${'a'.repeat(20000)}`);
    expect(res.status).toBe(414);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({ error: { code: 'uri_too_long', message: expect.stringContaining('16 KB') } });
  });

  test('when the headers are larger than the parser allows, then 431 with the JSON error shape', async () => {
    boot.serve((_req, res) => res.end('never'));
    const res = await fetch(`${base}/x`, { headers: { 'x-pad': 'b'.repeat(20000) } });
    expect(res.status).toBe(431);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({
      error: { code: 'request_header_fields_too_large', message: expect.any(String) },
    });
  });
});
