import {
  freePort,
  readiness,
  spawnService,
  startServiceProcess,
  startMongoStandIn,
  startNatsServer,
  uniqueName,
  waitUntilReady,
  type LocalServer,
  type ServiceProcess,
} from '@cm/testkit';

/** Services start in any order: the events service starts before its dependencies and waits for them. */
const running: ServiceProcess[] = [];
const servers: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function startEventsProcess(env: Record<string, string>): Promise<{ proc: ServiceProcess; base: string }> {
  const { proc, baseUrl } = await startServiceProcess('events', {
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('events_order'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    EVENTS_STREAM: uniqueName('EVENTS'),
    EVENTS_SUBJECT_PREFIX: uniqueName('ev'),
    EVENTS_DEAD_LETTER_SUBJECT: uniqueName('evdlq'),
    CONSUMER_DURABLE: uniqueName('writer'),
    SHUTDOWN_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
    ...env,
  });
  running.push(proc);
  return { proc, base: baseUrl };
}

describe('events service start-up order', () => {
  test('when NATS is down at start, then it answers /healthz, stays not ready naming nats, logs each attempt, and becomes ready once NATS starts', async () => {
    const natsPort = await freePort();
    const { proc, base } = await startEventsProcess({ NATS_URL: `nats://127.0.0.1:${natsPort}` });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await proc.waitForOutput(/"attempt":2,"dependency":"nats".*"message":"waiting for nats"/, 10000);
    expect(await readiness(base)).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { nats: 'unavailable' }, waiting_for: 'nats' },
    });
    const pixel = await fetch(`${base}/v1/v.gif?owner_id=1&name=impression`);
    expect(pixel.status).toBe(503);
    expect(await pixel.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringContaining('waiting for nats') },
    });

    servers.push(await startNatsServer({ port: natsPort }));
    await waitUntilReady(base, 20000);
    expect(proc.output()).toMatch(/nats is available/);
    expect(proc.child.exitCode).toBeNull();
  }, 40000);

  test('when MongoDB is down at start, then it stays not ready naming mongo and becomes ready once MongoDB starts', async () => {
    const mongoPort = await freePort();
    const { proc, base } = await startEventsProcess({ MONGO_URL: `mongodb://127.0.0.1:${mongoPort}` });
    await proc.waitForOutput(/waiting for mongo/, 15000);
    expect(await readiness(base)).toMatchObject({
      status: 503,
      body: { checks: { nats: 'ok', mongo: 'unavailable' }, waiting_for: 'mongo' },
    });

    servers.push(await startMongoStandIn({ port: mongoPort, heap: '256m' }));
    await waitUntilReady(base, 30000);
    expect(proc.child.exitCode).toBeNull();
  }, 60000);

  test('when SIGTERM arrives while it waits for a dependency, then it exits 0 saying start-up was cancelled', async () => {
    const { proc } = await startEventsProcess({ NATS_URL: `nats://127.0.0.1:${await freePort()}` });
    await proc.waitForOutput(/waiting for nats/, 10000);
    const { code } = await proc.stop('SIGTERM');
    expect(code).toBe(0);
    expect(proc.output()).toMatch(/start-up cancelled/);
  }, 20000);

  test('when a dependency is misconfigured (an unparseable MongoDB URL), then it exits 1 at once naming it, without retrying', async () => {
    const port = await freePort();
    const proc = spawnService('events', {
      NODE_ENV: 'test',
      EVENTS_PORT: String(port),
      MONGO_URL: 'mongodb://127.0.0.1:99999',
      NATS_URL: process.env.NATS_URL,
      LOG_LEVEL: 'info',
    });
    running.push(proc);
    const { code } = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output()).toMatch(
      /"error":"mongo: MONGO_URL cannot be used: .*not retried.*"message":"start-up failed"/,
    );
    expect(proc.output()).not.toMatch(/waiting for mongo/);
  }, 20000);
});
