/**
 * One rollup thread (rollup-threads.ts starts it): a builder of its shard of the units on its own
 * connection, one pass per `run` message. What it finds broken is counted by the main thread's
 * metric; its logs go to the process's output like the main thread's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { connectMongo, createLogger } from '@cm/platform';
import { BrokenUnits } from './broken-units';
import { CellStore } from './cell-store';
import { RollupBuilder } from './rollup-builder';
import { RollupMarks } from './rollup-marks';
import type { RollupThreadData, ThreadReply, ThreadRequest } from './rollup-thread-messages';

async function main(port: NonNullable<typeof parentPort>, data: RollupThreadData): Promise<void> {
  const logger = createLogger({ service: 'events', level: data.logLevel });
  const mongo = await connectMongo(data.mongoUrl, data.mongoDb);
  const reply = (msg: ThreadReply) => port.postMessage(msg);
  const marks = new RollupMarks(mongo.db);
  const cells = new CellStore(mongo.db);
  const broken = new BrokenUnits(
    marks.collection,
    cells,
    logger,
    (level, foundBy, reason) => reply({ type: 'broken', level, foundBy, reason }),
    { rawRetentionDays: data.brokenRawRetentionDays },
  );
  const builder = new RollupBuilder(mongo.db, marks, cells, { ...data.builder, broken, logger });
  port.on('message', (msg: ThreadRequest) => {
    if (msg.type === 'run')
      builder.runOnce().then(
        (pass) => reply({ type: 'pass', pass }),
        (err: unknown) => reply({ type: 'error', error: err instanceof Error ? err.message : String(err) }),
      );
    else void mongo.close().finally(() => port.close());
  });
  reply({ type: 'ready' });
}

if (parentPort) {
  const port = parentPort;
  main(port, workerData as RollupThreadData).catch((err: unknown) => {
    port.postMessage({ type: 'error', error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply);
    port.close();
  });
}
