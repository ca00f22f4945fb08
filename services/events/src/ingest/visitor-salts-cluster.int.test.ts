import path from 'node:path';
import { createLogger } from '@cm/platform';
import { startNatsCluster, uniqueName, type NatsCluster } from '@cm/testkit';
import { filesHolding, pollUntil, rotateDaily } from '../../test/support/salt-store';

/**
 * What the store files of a 3-node JetStream cluster hold after the salt (an R3 bucket) has
 * rotated through six days, one node killed (kill -9) for two of them: each node's store
 * directory is read byte by byte for every retired salt.
 */
const logger = createLogger({
  service: 'visitor-salts-cluster-test',
  level: 'warn',
  silent: process.env.TEST_LOGS !== '1',
});

let cluster: NatsCluster;
let stream: string;
let salts: Buffer[];

beforeAll(async () => {
  cluster = await startNatsCluster();
  const bucket = uniqueName('salts');
  stream = `KV_${bucket}`;
  const replicasCurrent = (n: number) => async () => (await cluster.currentReplicas(stream)).length === n;
  salts = await rotateDaily({ url: cluster.url, bucket, replicas: 3, days: 6, logger }, async (day) => {
    if (day === 3) {
      await cluster.kill('n3');
      await pollUntil(replicasCurrent(2), 30_000, () => 'no leader after n3 was killed');
    }
    if (day === 5) {
      await cluster.restart('n3');
      await pollUntil(replicasCurrent(3), 30_000, () => 'n3 did not catch up');
    }
  });
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
});

const held = (dirOf: (storeDir: string) => string, needles: Buffer[]) =>
  cluster.nodes.flatMap((n) => filesHolding(dirOf(n.storeDir), needles).map((h) => `${n.name}/${h.file}`));

describe('retired visitor salts in the store files of a 3-node cluster', () => {
  test("when the salt has rotated, then no node's stream store holds a retired salt (the node that was down erased them as it caught up), and every node holds the current one", () => {
    const streamStore = (storeDir: string) => path.join(storeDir, 'jetstream', '$G', 'streams', stream);
    expect(held(streamStore, salts.slice(0, -1))).toEqual([]);
    expect(cluster.nodes.map((n) => filesHolding(streamStore(n.storeDir), salts.slice(-1)).length > 0)).toEqual([
      true,
      true,
      true,
    ]);
  });

  test('when each node has compacted its replicated log, then no file of any node holds a retired salt', async () => {
    // The replicated (RAFT) log of each node keeps every write, salts included, until its next
    // compaction: every 2 to 3 minutes while the node runs. A salt retires a whole period after it
    // was written; here the periods pass in seconds, so wait for that compaction.
    const retired = salts.slice(0, -1);
    await pollUntil(
      async () => held((d) => d, retired).length === 0,
      240_000,
      () => `retired salts still in ${held((d) => d, retired).join(', ')}`,
    );
  }, 250_000);
});
