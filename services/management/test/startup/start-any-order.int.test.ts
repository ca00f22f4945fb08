import {
  freePort,
  readiness,
  startServiceProcess,
  startMongoStandIn,
  startNatsServer,
  uniqueName,
  waitUntilReady,
  type LocalServer,
  type ServiceProcess,
} from '@cm/testkit';

/** Services start in any order: the management service starts before its dependencies and waits for them. */
const running: ServiceProcess[] = [];
const servers: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function startManagementProcess(env: Record<string, string>): Promise<{ proc: ServiceProcess; base: string }> {
  const { proc, baseUrl } = await startServiceProcess('management', {
    NODE_ENV: 'test',
    MONGO_URL: process.env.MONGO_URL,
    NATS_URL: process.env.NATS_URL,
    MONGO_DB: uniqueName('mgmt_order'),
    OWNER_REGISTRY_BUCKET: uniqueName('owners'),
    SHUTDOWN_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
    ...env,
  });
  running.push(proc);
  return { proc, base: baseUrl };
}

describe('management service start-up order', () => {
  test('when MongoDB is down at start, then it answers /healthz, stays not ready naming mongo, and becomes ready once MongoDB starts', async () => {
    const mongoPort = await freePort();
    const { proc, base } = await startManagementProcess({ MONGO_URL: `mongodb://127.0.0.1:${mongoPort}` });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await proc.waitForOutput(/"dependency":"mongo".*"message":"waiting for mongo"/, 15000);
    expect(await readiness(base)).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { mongo: 'unavailable' }, waiting_for: 'mongo' },
    });

    servers.push(await startMongoStandIn({ port: mongoPort, heap: '256m' }));
    expect((await waitUntilReady(base, 30000)).body).toEqual({ status: 'ready', checks: { mongo: 'ok', nats: 'ok' } });
  }, 60000);

  test('when NATS is down at start, then it stays not ready naming nats and becomes ready once NATS starts', async () => {
    const natsPort = await freePort();
    const { proc, base } = await startManagementProcess({ NATS_URL: `nats://127.0.0.1:${natsPort}` });
    await proc.waitForOutput(/"dependency":"nats".*"message":"waiting for nats"/, 10000);
    expect(await readiness(base)).toMatchObject({
      status: 503,
      body: { checks: { mongo: 'ok', nats: 'unavailable' }, waiting_for: 'nats' },
    });
    const api = await fetch(`${base}/api/v3/campaign/`);
    expect(api.status).toBe(503);
    expect(await api.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringContaining('waiting for nats') },
    });

    servers.push(await startNatsServer({ port: natsPort }));
    await waitUntilReady(base, 20000);
    expect((await fetch(`${base}/api/v3/campaign/`)).status).toBe(401);
  }, 40000);
});
