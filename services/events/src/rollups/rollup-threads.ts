import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BrokenFoundBy, BrokenReason } from './broken-units';
import type { BuildPass } from './rollup-builder';
import type { RollupThreadData, ThreadReply } from './rollup-thread-messages';

/** What the rollup role runs each pass: one builder in this thread, or several threads (RollupThreads). */
export interface PassRunner {
  runOnce(): Promise<BuildPass>;
  /** Ends what the runner started (threads and their connections). */
  close?(): Promise<void>;
}

export interface RollupThreadsOptions {
  /** How many threads, each building shard `i` of `count` (ROLLUP_THREADS). */
  count: number;
  /** Everything but the shard, which each thread gets here. */
  data: RollupThreadData;
  /** A thread found a broken unit (the main thread's metric). */
  onBroken?: (level: string, foundBy: BrokenFoundBy, reason: BrokenReason) => void;
  /** The compiled thread entry (tests point at the build's; default: next to this file). */
  threadFile?: string;
  /** Each thread's old-generation heap in MiB (its own limit: threads do not share a heap). */
  maxOldGenerationSizeMb?: number;
}

interface Thread {
  worker: Worker;
  /** The pass or start-up waiting for this thread's reply. */
  waiting?: { resolve: (pass: BuildPass | undefined) => void; reject: (err: Error) => void };
  ended: boolean;
}

/**
 * Builder passes on several cores: `count` worker threads, each a RollupBuilder of its shard of
 * the units (a day's hours and the units made from them in one thread, larger units spread by
 * their index) on its own connection. A pass runs every thread's pass and waits for all of them;
 * a unit whose children another thread builds in the same pass waits for the next pass. A thread
 * that dies (out of memory, a crash) fails that pass and is started again for the next one.
 */
export class RollupThreads implements PassRunner {
  private readonly threads: (Thread | undefined)[];

  constructor(private readonly opts: RollupThreadsOptions) {
    this.threads = Array.from({ length: opts.count }, () => undefined);
  }

  async runOnce(): Promise<BuildPass> {
    const settled = await Promise.allSettled(this.threads.map((_, i) => this.pass(i)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return mergePasses(settled.map((s) => (s as PromiseFulfilledResult<BuildPass>).value));
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.map(async (t, i) => {
        this.threads[i] = undefined;
        if (!t || t.ended) return;
        const exited = new Promise<void>((resolve) => t.worker.once('exit', () => resolve()));
        t.worker.postMessage({ type: 'close' });
        await exited;
      }),
    );
  }

  private async pass(i: number): Promise<BuildPass> {
    const thread = await this.started(i);
    const pass = await this.ask(thread, () => thread.worker.postMessage({ type: 'run' }));
    return pass!;
  }

  /** Thread `i`, started (and connected) when it was not running. */
  private async started(i: number): Promise<Thread> {
    const running = this.threads[i];
    if (running && !running.ended) return running;
    const { data, count, threadFile, maxOldGenerationSizeMb } = this.opts;
    const workerData: RollupThreadData = { ...data, builder: { ...data.builder, shard: { index: i, count } } };
    const worker = new Worker(threadFile ?? path.join(__dirname, 'rollup-thread.js'), {
      workerData,
      resourceLimits: maxOldGenerationSizeMb ? { maxOldGenerationSizeMb } : undefined,
    });
    const thread: Thread = { worker, ended: false };
    this.threads[i] = thread;
    worker.on('message', (msg: ThreadReply) => this.received(thread, msg));
    const end = (err: Error) => {
      thread.ended = true;
      const waiting = thread.waiting;
      thread.waiting = undefined;
      waiting?.reject(err);
    };
    worker.on('error', (err) => end(new Error(`rollup thread ${i} failed: ${err.message}`)));
    worker.on('exit', (code) => end(new Error(`rollup thread ${i} exited with ${code}`)));
    await this.ask(thread, () => undefined);
    return thread;
  }

  private ask(thread: Thread, send: () => void): Promise<BuildPass | undefined> {
    if (thread.ended) return Promise.reject(new Error('rollup thread ended'));
    return new Promise((resolve, reject) => {
      thread.waiting = { resolve, reject };
      send();
    });
  }

  private received(thread: Thread, msg: ThreadReply): void {
    if (msg.type === 'broken') {
      this.opts.onBroken?.(msg.level, msg.foundBy, msg.reason);
      return;
    }
    const waiting = thread.waiting;
    thread.waiting = undefined;
    if (msg.type === 'error') waiting?.reject(new Error(msg.error));
    else waiting?.resolve(msg.type === 'pass' ? msg.pass : undefined);
  }
}

/** One pass of every thread as one: built and counts added up, the lag the largest, the lists joined. */
function mergePasses(passes: readonly BuildPass[]): BuildPass {
  const first = passes[0]!;
  return {
    built: first.built.map((_, level) => passes.reduce((sum, p) => sum + (p.built[level] ?? 0), 0)),
    waiting: passes.reduce((sum, p) => sum + p.waiting, 0),
    lagSeconds: Math.max(...passes.map((p) => p.lagSeconds)),
    swept: passes.reduce((sum, p) => sum + p.swept, 0),
    orphans: passes.reduce((sum, p) => sum + p.orphans, 0),
    failed: passes.flatMap((p) => p.failed),
    overCap: passes.flatMap((p) => p.overCap),
  };
}
