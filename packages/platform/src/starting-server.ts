import http from 'node:http';
import type { Logger } from 'winston';
import { answerClientErrors } from './client-errors';
import { closeServer, listen } from './http-server';
import { NO_SNIFF, NO_SNIFF_HEADER } from './no-sniff';
import { retryUntil, type RetryOptions } from './retry-until';

export interface StartingServerOptions {
  logger: Logger;
  /** Aborting it (SIGTERM during start-up) ends the waits between attempts. */
  signal?: AbortSignal;
  /** How long a request that arrives during start-up waits for the service before it gets a 503. */
  holdMs?: number;
  /** Most requests held at once; beyond it they get a 503 at once. */
  maxHeld?: number;
  retry?: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>;
}

type StepState = 'ok' | 'unavailable';

const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  [NO_SNIFF_HEADER]: NO_SNIFF,
};

/**
 * An HTTP server that listens before the service's dependencies are connected (services
 * start in any order, docs/architecture.md). Until `serve()` hands it the real handler:
 * `/healthz` is 200, `/readyz` is 503 naming each start-up step and its state, and any other
 * request waits up to `holdMs` for the service, then gets a 503 naming what is missing. The
 * composition root runs each step through `step()`, which retries it with backoff.
 */
export class StartingServer {
  readonly server: http.Server;
  private handler?: http.RequestListener;
  private readonly steps = new Map<string, StepState>();
  private waitingFor?: string;
  private readonly held = new Set<() => void>();
  private readonly holdMs: number;
  private readonly maxHeld: number;

  constructor(private readonly opts: StartingServerOptions) {
    this.holdMs = opts.holdMs ?? 5000;
    this.maxHeld = opts.maxHeld ?? 1000;
    this.server = http.createServer((req, res) => {
      if (this.handler) this.handler(req, res);
      else this.whileStarting(req, res);
    });
    answerClientErrors(this.server);
  }

  listen(port: number, host?: string): Promise<number> {
    return listen(this.server, port, host);
  }

  /** Runs one start-up step (connect, create streams, ...) until it succeeds; /readyz shows it meanwhile. */
  async step<T>(name: string, attempt: () => Promise<T>): Promise<T> {
    this.steps.set(name, 'unavailable');
    this.waitingFor = name;
    const value = await retryUntil(name, attempt, {
      ...this.opts.retry,
      logger: this.opts.logger,
      signal: this.opts.signal,
    });
    this.steps.set(name, 'ok');
    this.waitingFor = undefined;
    return value;
  }

  /** Start-up is done: every request from now on (and every held one) goes to the service. */
  serve(handler: http.RequestListener): void {
    this.handler = handler;
    for (const release of this.held) release();
  }

  /** Start-up failed or was cancelled: held requests get their 503, then the server closes. */
  async close(timeoutMs: number): Promise<void> {
    for (const release of this.held) release();
    await closeServer(this.server, timeoutMs);
  }

  private whileStarting(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    if (path === '/readyz') {
      const body = {
        status: 'unavailable',
        checks: Object.fromEntries(this.steps),
        ...(this.waitingFor ? { waiting_for: this.waitingFor } : {}),
      };
      res.writeHead(503, JSON_HEADERS).end(JSON.stringify(body));
      return;
    }
    // also while a SIGTERM is pending: if start-up still completes, the request is served before the drain
    if (this.held.size >= this.maxHeld) {
      this.unavailable(res);
      return;
    }
    const release = () => {
      clearTimeout(timer);
      this.held.delete(release);
      if (this.handler) this.handler(req, res);
      else this.unavailable(res);
    };
    const timer = setTimeout(release, this.holdMs);
    this.held.add(release);
  }

  private unavailable(res: http.ServerResponse): void {
    const what = this.waitingFor ? `waiting for ${this.waitingFor}` : 'not ready yet';
    res.writeHead(503, { ...JSON_HEADERS, 'Retry-After': '5' });
    res.end(
      JSON.stringify({ error: { code: 'unavailable', message: `the service is starting (${what}); retry later` } }),
    );
  }
}

export interface StartEarlyOptions extends Omit<StartingServerOptions, 'logger'> {
  logger: Logger;
  port: number;
  /** How long closing the server may wait for held requests when start-up fails. */
  closeTimeoutMs: number;
}

/** Registers what start-up opened (connections), to be closed if start-up fails or is cancelled. */
export type OnStartFailure = (close: () => Promise<unknown>) => void;

/**
 * The start-up of a service process: listen first (a StartingServer), then run `start`, which
 * connects through `boot.step()` and finally calls `boot.serve()`. If `start` fails or is
 * cancelled, whatever it registered with `onFailure` is closed (newest first), then the server.
 */
export async function startEarly<T>(
  opts: StartEarlyOptions,
  start: (boot: StartingServer, boundPort: number, onFailure: OnStartFailure) => Promise<T>,
): Promise<T> {
  const boot = new StartingServer(opts);
  // keep-alive longer than the load balancers' (60 s) so they never reuse a connection we closed
  boot.server.keepAliveTimeout = 65_000;
  boot.server.headersTimeout = 66_000;
  const opened: (() => Promise<unknown>)[] = [];
  try {
    return await start(boot, await boot.listen(opts.port), (close) => opened.push(close));
  } catch (err) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    await boot.close(opts.closeTimeoutMs);
    throw err;
  }
}
