import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureMongoStandIn } from './binaries';
import { ensureNatsServer } from './nats-server-binary';
import { freePort, waitForPort } from './ports';
import { repoRoot } from './repo-root';
import { WATCHDOG_GRACE_MS } from './watchdog';

export interface LocalServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess, cleanup?: () => void, killAfterMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup?.();
      resolve();
      return;
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', () => {
      clearTimeout(kill);
      cleanup?.();
      resolve();
    });
    child.kill('SIGTERM');
  });
}

interface SpawnServerOptions {
  /** Where the server's stdout and stderr go. */
  output: 'ignore' | 'inherit' | number;
  /** Own process group: a terminal's Ctrl-C does not reach it (`pnpm start` stops it after the services). */
  detached?: boolean;
  /**
   * Run it under the watchdog (dist/watchdog.js): it stops when this process is gone, even
   * after kill -9. Only from the built testkit (`pnpm start`).
   */
  watchdog?: boolean;
}

/** Spawns a data store process, directly or under the watchdog; stop() waits for it (SIGKILL as the last resort). */
function spawnServer(
  cmd: string,
  args: string[],
  opts: SpawnServerOptions,
): { child: ChildProcess; stop: (cleanup?: () => void) => Promise<void> } {
  const watchdog = path.join(__dirname, 'watchdog.js');
  if (opts.watchdog && !existsSync(watchdog)) throw new Error('the watchdog runs from the built testkit (pnpm build)');
  const child = opts.watchdog
    ? spawn(process.execPath, [watchdog, cmd, ...args], {
        stdio: ['pipe', opts.output, opts.output],
        detached: opts.detached ?? false,
      })
    : spawn(cmd, args, { stdio: ['ignore', opts.output, opts.output], detached: opts.detached ?? false });
  // a watchdog kills its server itself after its grace period: give it that long before killing it
  const killAfterMs = opts.watchdog ? WATCHDOG_GRACE_MS + 5000 : 5000;
  return { child, stop: (cleanup) => stopProcess(child, cleanup, killAfterMs) };
}

export interface NatsServerOptions {
  port?: number;
  /** JetStream's store; a temporary directory (removed on stop) when not given. */
  storeDir?: string;
  quiet?: boolean;
  detached?: boolean;
  watchdog?: boolean;
  /** JetStream's max_file_store (e.g. '4MB'), as deploy/nats sets it; unlimited when not given. */
  maxFileStore?: string;
}

/** `nats-server -js` on loopback with its own store directory. */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<LocalServer> {
  const bin = ensureNatsServer();
  const port = opts.port ?? (await freePort());
  const ownStore = !opts.storeDir;
  const storeDir = opts.storeDir ?? mkdtempSync(path.join(os.tmpdir(), 'nats-js-'));
  let args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir];
  if (opts.maxFileStore) {
    // storage limits exist only in a configuration file
    const conf = path.join(storeDir, 'nats.conf');
    writeFileSync(
      conf,
      `listen: 127.0.0.1:${port}\njetstream { store_dir: "${storeDir}", max_file_store: ${opts.maxFileStore} }\n`,
    );
    args = ['-c', conf];
  }
  const server = spawnServer(bin, args, {
    output: opts.quiet === false ? 'inherit' : 'ignore',
    detached: opts.detached,
    watchdog: opts.watchdog,
  });
  await waitForPort(port, 15000);
  const cleanup = () => {
    if (ownStore) rmSync(storeDir, { recursive: true, force: true });
  };
  return { url: `nats://127.0.0.1:${port}`, port, process: server.child, stop: () => server.stop(cleanup) };
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
  watchdog?: boolean;
  /** Append the stand-in's stdout and stderr (start-up line, STORE FULL notices) to this file. */
  logFile?: string;
  /** Further JVM options (a benchmark's garbage collector and its pause log, e.g. `-Xlog:gc:file=...`). */
  jvmOptions?: string[];
}

/** The heap of the test run's stand-in (jest global setup): explicit, and ample for the whole suite. */
export const TEST_STAND_IN_HEAP = '2g';

/** The MongoDB-wire-compatible server (for machines without mongod) on loopback: in memory, or on disk in an H2 file. */
export async function startMongoStandIn(opts: MongoStandInOptions = {}): Promise<LocalServer> {
  const libDir = ensureMongoStandIn();
  const port = opts.port ?? (await freePort());
  const launcher = path.join(repoRoot(), 'deploy', 'mongo-stand-in', 'MongoStandIn.java');
  // without a heap the JVM takes a quarter of RAM; the store-full guard works either way
  const heap = opts.heap ?? process.env.MONGO_STAND_IN_HEAP;
  const storage = opts.h2File ? `h2:${opts.h2File}` : 'memory';
  const log = opts.logFile ? openSync(opts.logFile, 'a') : undefined;
  const args = [
    ...(heap ? [`-Xmx${heap}`] : []),
    ...(opts.jvmOptions ?? []),
    '-Xss4m',
    '-cp',
    path.join(libDir, '*'),
    launcher,
    String(port),
    '127.0.0.1',
    storage,
  ];
  const server = spawnServer('java', args, {
    output: log ?? (opts.quiet === false ? 'inherit' : 'ignore'),
    detached: opts.detached,
    watchdog: opts.watchdog,
  });
  if (log !== undefined) closeSync(log);
  await waitForPort(port, 60000);
  return { url: `mongodb://127.0.0.1:${port}`, port, process: server.child, stop: () => server.stop() };
}
