import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsCluster, type NatsCluster } from './nats-cluster';

let cluster: NatsCluster;
let nc: NatsConnection;

beforeAll(async () => {
  cluster = await startNatsCluster();
  nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
}, 60000);
afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (ok(v)) return v;
    } catch {
      /* an election in progress */
    }
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('startNatsCluster', () => {
  test('when the stream leader is killed, then another node leads, acknowledged messages stay, and the restarted node catches up', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'CLUSTER_T', subjects: ['cluster_t.>'], num_replicas: 3 });
    const js = jetstream(nc);
    // the stream answers once its replicas have elected a leader (until then a publish meets no
    // responders); each publish is retried under its message id, so a retry is never stored twice
    await eventually(
      () => cluster.streamLeader('CLUSTER_T'),
      (l) => Boolean(l),
      15000,
    );
    for (let i = 0; i < 50; i++)
      await eventually(
        () => js.publish('cluster_t.a', `m${i}`, { msgID: `m${i}` }),
        () => true,
        10000,
      );
    await eventually(
      () => cluster.currentReplicas('CLUSTER_T'),
      (r) => r.length === 3,
      15000,
    );

    const leader = await cluster.streamLeader('CLUSTER_T');
    expect(cluster.nodes.map((n) => n.name)).toContain(leader);
    await cluster.kill(leader);
    const next = await eventually(
      () => cluster.streamLeader('CLUSTER_T'),
      (l) => l !== leader,
      20000,
    );
    expect(next).not.toBe(leader);
    await eventually(
      () => js.publish('cluster_t.a', 'after', { msgID: 'after-1' }),
      () => true,
      10000,
    );

    await cluster.restart(leader);
    const current = await eventually(
      () => cluster.currentReplicas('CLUSTER_T'),
      (r) => r.length === 3,
      30000,
    );
    expect(current.sort()).toEqual(cluster.nodes.map((n) => n.name).sort());
    expect((await jsm.streams.info('CLUSTER_T')).state.messages).toBe(51);
  }, 90000);
});
