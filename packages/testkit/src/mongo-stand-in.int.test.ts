import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { isStoreFullError } from '../../platform/src/mongo';
import { startMongoStandIn, type LocalServer } from './local-servers';

/** deploy/mongo-stand-in/MongoStandIn.java: the H2 file survives kill -9; a full store says so. */
let dir: string;
const started: LocalServer[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'stand-in-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function withClient<T>(server: LocalServer, fn: (c: MongoClient) => Promise<T>): Promise<T> {
  const client = await MongoClient.connect(server.url, { serverSelectionTimeoutMS: 10000 });
  try {
    return await fn(client);
  } finally {
    await client.close(true);
  }
}

describe('MongoDB stand-in on H2', () => {
  test('when it is killed with -9 right after acknowledging writes, then after a restart every acknowledged document and the unique index are there', async () => {
    const file = path.join(dir, 'data.mv.db');
    const first = await startMongoStandIn({ h2File: file, heap: '256m' });
    started.push(first);
    let acknowledged = 0;
    await withClient(first, async (c) => {
      const coll = c.db('durable').collection('docs');
      await coll.createIndex({ email: 1 }, { unique: true });
      for (let batch = 0; batch < 20; batch++) {
        const docs = Array.from({ length: 250 }, (_, i) => ({
          email: `u${batch}-${i}@example.com`,
          n: batch * 250 + i,
        }));
        acknowledged += (await coll.insertMany(docs, { ordered: false })).insertedCount;
      }
      await coll.updateOne({ email: 'u0-0@example.com' }, { $set: { updated: true } });
      first.process.kill('SIGKILL');
    });
    await new Promise((r) => first.process.once('exit', r));

    const second = await startMongoStandIn({ h2File: file, heap: '256m', port: first.port });
    started.push(second);
    await withClient(second, async (c) => {
      const coll = c.db('durable').collection('docs');
      expect(await coll.countDocuments()).toBe(acknowledged);
      expect(await coll.findOne({ email: 'u0-0@example.com' })).toMatchObject({ updated: true });
      await expect(coll.insertOne({ email: 'u3-3@example.com' })).rejects.toMatchObject({ code: 11000 });
    });
    expect(acknowledged).toBe(5000);
    expect(statSync(file).size).toBeGreaterThan(0);
  }, 60000);
});

describe('MongoDB stand-in in memory', () => {
  test('when its heap fills up, then writes fail with 14031 OutOfDiskSpace saying how to give it memory, it logs STORE FULL, and a drop makes room again', async () => {
    const logFile = path.join(dir, 'stand-in.log');
    const server = await startMongoStandIn({ heap: '96m', logFile });
    started.push(server);
    await withClient(server, async (c) => {
      const coll = c.db('full').collection('docs');
      const pad = 'x'.repeat(2000);
      let refused: unknown;
      for (let batch = 0; batch < 200 && !refused; batch++) {
        try {
          await coll.insertMany(
            Array.from({ length: 500 }, (_, i) => ({ batch, i, pad })),
            { ordered: false },
          );
        } catch (err) {
          refused = err;
        }
      }
      expect(refused).toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });
      expect(String((refused as Error).message)).toMatch(/the MongoDB stand-in store is full: .*MONGO_STAND_IN_HEAP/);
      expect(isStoreFullError(refused)).toBe(true);
      expect(readFileSync(logFile, 'utf8')).toMatch(/STORE FULL/);

      await coll.drop();
      await expect(coll.insertOne({ after: 'drop' })).resolves.toMatchObject({ acknowledged: true });
    });
  }, 60000);
});
