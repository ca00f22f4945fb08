import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureMongoStandIn } from './binaries';
import { ensureNatsServer } from './nats-server-binary';
import { freePort, waitForPort } from './ports';
import { repoRoot } from './repo-root';

export interface LocalServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess, cleanup?: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup?.();
      resolve();
      return;
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      cleanup?.();
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** `nats-server -js` on loopback with its own store directory. */
export async function startNatsServer(opts: { port?: number; storeDir?: string; quiet?: boolean } = {}): Promise<LocalServer> {
  const bin = ensureNatsServer();
  const port = opts.port ?? (await freePort());
  const ownStore = !opts.storeDir;
  const storeDir = opts.storeDir ?? mkdtempSync(path.join(os.tmpdir(), 'nats-js-'));
  const child = spawn(bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: opts.quiet === false ? 'inherit' : 'ignore',
  });
  await waitForPort(port, 15000);
  const cleanup = () => {
    if (ownStore) rmSync(storeDir, { recursive: true, force: true });
  };
  return { url: `nats://127.0.0.1:${port}`, port, process: child, stop: () => stopProcess(child, cleanup) };
}

export interface MongoStandInOptions {
  port?: number;
  quiet?: boolean;
  /** JVM heap, e.g. '12g'. The memory backend needs about 2 KB per stored event and refuses writes (code 14031) near it. */
  heap?: string;
  /** Keep the data in this H2 file (survives restarts and kill -9) instead of the heap. */
  h2File?: string;
  /** Run the JVM in its own process group (`pnpm start`: Ctrl-C in the terminal must not reach it). */
  detached?: boolean;
  /** Append the stand-in's stdout and stderr (start-up line, STORE FULL notices) to this file. */
  logFile?: string;
}

/** The heap of the test run's stand-in (jest global setup): explicit, and ample for the whole suite. */
export const TEST_STAND_IN_HEAP = '2g';

/** The MongoDB-wire-compatible server (CONVENTIONS section 6) on loopback: in memory, or on disk in an H2 file. */
export async function startMongoStandIn(opts: MongoStandInOptions = {}): Promise<LocalServer> {
  const libDir = ensureMongoStandIn();
  const port = opts.port ?? (await freePort());
  const launcher = path.join(repoRoot(), 'deploy', 'mongo-stand-in', 'MongoStandIn.java');
  // without a heap the JVM takes a quarter of RAM; the store-full guard works either way
  const heap = opts.heap ?? process.env.MONGO_STAND_IN_HEAP;
  const storage = opts.h2File ? `h2:${opts.h2File}` : 'memory';
  const log = opts.logFile ? openSync(opts.logFile, 'a') : undefined;
  const output = log ?? (opts.quiet === false ? 'inherit' : 'ignore');
  const child = spawn('java', [...(heap ? [`-Xmx${heap}`] : []), '-Xss4m', '-cp', path.join(libDir, '*'), launcher, String(port), '127.0.0.1', storage], {
    stdio: ['ignore', output, output],
    detached: opts.detached ?? false,
  });
  if (log !== undefined) closeSync(log);
  await waitForPort(port, 60000);
  return { url: `mongodb://127.0.0.1:${port}`, port, process: child, stop: () => stopProcess(child) };
}
