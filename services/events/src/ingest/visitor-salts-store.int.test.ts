import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createLogger } from '@cm/platform';
import { startNatsServer, uniqueName, type LocalServer } from '@cm/testkit';
import { FIRST_DAY, filesHolding, rotateDaily, saltBucketContents } from '../../test/support/salt-store';
import { SaltBucket } from './salt-bucket';
import { VisitorSalts } from './visitor-salts';

/**
 * What the store files of a NATS server hold after the salt has rotated: the tests start their own
 * nats-server with a store directory they read byte by byte for every retired salt. (A 3-node
 * cluster: visitor-salts-cluster.int.test.ts.)
 */
const logger = createLogger({
  service: 'visitor-salts-store-test',
  level: 'warn',
  silent: process.env.TEST_LOGS !== '1',
});

let storeDir: string;
let server: LocalServer;

beforeEach(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'salt-store-'));
  server = await startNatsServer({ storeDir });
});
afterEach(async () => {
  await server.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

describe('retired visitor salts in the store files of one NATS server', () => {
  test('when the salt rotated through eight days, then no store file holds a retired salt, and the current one is stored', async () => {
    const bucket = uniqueName('salts');
    const salts = await rotateDaily({ url: server.url, bucket, replicas: 1, days: 8, logger });
    expect(new Set(salts.map((s) => s.toString('hex'))).size).toBe(8);
    expect(filesHolding(storeDir, salts.slice(0, -1))).toEqual([]);
    expect(filesHolding(storeDir, salts.slice(-1))).not.toEqual([]);
    const nc = await connect({ servers: server.url });
    expect(await saltBucketContents(nc, bucket)).toEqual({ '2026-03-08': salts.at(-1)!.toString('hex') });
    await nc.close();
  });

  test('when a salt is removed without being erased (as the max age or a replica catching up removes it), then no store file holds it either: each salt is a block file of its own', async () => {
    const nc = await connect({ servers: server.url });
    try {
      const bucket = uniqueName('salts');
      const stream = `KV_${bucket}`;
      const first = (
        await new VisitorSalts(nc, { bucket, replicas: 1, period: 'day', now: () => FIRST_DAY }, logger).current()
      ).export();
      // the next day's salt as a process creates it, the first one not erased yet
      const store = new SaltBucket(nc, { bucket, replicas: 1, maxAgeMs: 86_400_000 }, logger);
      const second = randomBytes(32);
      expect((await store.create('2026-03-02', second, (await store.view()).last)).created).toBe(true);
      const jsm = await jetstreamManager(nc);
      const firstSeq = (await jsm.streams.getMessage(stream, { last_by_subj: `$KV.${bucket}.2026-03-01` }))!.seq;
      expect(filesHolding(storeDir, [first])).not.toEqual([]);

      await jsm.streams.deleteMessage(stream, firstSeq, false);
      expect(filesHolding(storeDir, [first])).toEqual([]);
      expect(filesHolding(storeDir, [second])).not.toEqual([]);
    } finally {
      await nc.close();
    }
  });
});
