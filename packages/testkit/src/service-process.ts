import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, waitForPort } from './ports';
import { repoRoot } from './repo-root';

export type ServiceName = 'management' | 'events';

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the output matches, rejects after timeoutMs (with the output so far). */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Sends the signal (SIGTERM by default) unless the process is gone, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a built service (`services/<name>/dist/main.js`) as its own process with exactly this environment added. */
export function spawnService(name: ServiceName, env: Record<string, string | undefined>): ServiceProcess {
  const main = path.join(repoRoot(), 'services', name, 'dist', 'main.js');
  const child = spawn(process.execPath, [main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    output: () => out,
    exited,
    waitForOutput(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: no output matching ${pattern} after ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

const PORT_VARIABLE: Record<ServiceName, string> = { management: 'MANAGEMENT_PORT', events: 'EVENTS_PORT' };

/** spawnService on a free port; resolves once it listens (services listen before they are ready). */
export async function startServiceProcess(
  name: ServiceName,
  env: Record<string, string | undefined>,
): Promise<{ proc: ServiceProcess; baseUrl: string }> {
  const port = await freePort();
  const proc = spawnService(name, { ...env, [PORT_VARIABLE[name]]: String(port) });
  try {
    await waitForPort(port, 20000);
  } catch (err) {
    await proc.stop('SIGKILL');
    throw new Error(`${name} did not listen: ${String(err)}\n${proc.output()}`);
  }
  return { proc, baseUrl: `http://127.0.0.1:${port}` };
}
