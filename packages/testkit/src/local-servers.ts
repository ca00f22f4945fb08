import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

/** The in-memory MongoDB-wire-compatible server (CONVENTIONS section 6) on loopback. */
export async function startMongoStandIn(opts: { port?: number; quiet?: boolean; /** JVM heap, e.g. '12g' (about 2 KB per stored event). */ heap?: string } = {}): Promise<LocalServer> {
  const libDir = ensureMongoStandIn();
  const port = opts.port ?? (await freePort());
  const launcher = path.join(repoRoot(), 'deploy', 'mongo-stand-in', 'MongoStandIn.java');
  const child = spawn('java', [...(opts.heap ? [`-Xmx${opts.heap}`] : []), '-Xss4m', '-cp', path.join(libDir, '*'), launcher, String(port)], {
    stdio: opts.quiet === false ? 'inherit' : 'ignore',
  });
  await waitForPort(port, 60000);
  return { url: `mongodb://127.0.0.1:${port}`, port, process: child, stop: () => stopProcess(child) };
}
