import type { Logger } from 'winston';
import { ConfigError } from './config';

/** Thrown by retryUntil when its signal aborts the wait: start-up was cancelled (SIGTERM). */
export class StartAbortedError extends Error {
  constructor(readonly dependency: string) {
    super(`start-up cancelled while waiting for ${dependency}`);
    this.name = 'StartAbortedError';
  }
}

/** A start-up failure that retrying cannot fix (bad configuration, refused credentials). */
export class StartupError extends Error {
  constructor(
    readonly dependency: string,
    readonly reason: unknown,
  ) {
    super(`${dependency}: ${describeError(reason)} (not retried: fix the configuration)`);
    this.name = 'StartupError';
  }
}

export interface RetryOptions {
  logger: Logger;
  /**
   * Aborting it ends the wait between attempts with StartAbortedError. Attempts themselves run
   * regardless, so a start-up whose dependencies answer completes (and then drains normally).
   */
  signal?: AbortSignal;
  /** First delay; doubles per attempt up to maxDelayMs, with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** One line for a log: the message, with the driver's code name when there is one. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const message = err.message || err.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(err);
}

/** Delay before retry `attempt` (1-based): base x 2^(attempt-1), capped, then 50-100 % of that (jitter). */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(exp * (0.5 + random() / 2));
}

const PERMANENT_NAMES = new Set([
  'MongoParseError',
  'MongoInvalidArgumentError',
  'MongoAPIError',
  'MongoMissingCredentialsError',
]);
// 18 AuthenticationFailed, 13 Unauthorized: a wrong password does not fix itself
const PERMANENT_MONGO_CODES = new Set([18, 13]);
const PERMANENT_NATS =
  /authorization violation|authentication (expired|revoked)|permissions violation|invalid (url|server)|user authentication/i;

/** Configuration errors (ours, the MongoDB driver's, the NATS client's) and refused credentials; everything else is worth retrying. */
export function isPermanentStartupError(err: unknown): boolean {
  if (err instanceof ConfigError) return true;
  const e = err as { name?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.name === 'string' && PERMANENT_NAMES.has(e.name)) return true;
  if (typeof e?.code === 'number' && PERMANENT_MONGO_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && PERMANENT_NATS.test(e.message);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (slept: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(slept);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, waiting with exponential backoff between failures and
 * logging one line per failure that names the dependency, the error and the next wait. A
 * permanent error ends it at once (StartupError); so does the signal, during a wait
 * (StartAbortedError). Used by the composition roots so that services start in any order.
 */
export async function retryUntil<T>(dependency: string, attempt: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const base = opts.baseDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 10_000;
  for (let n = 1; ; n++) {
    try {
      const value = await attempt();
      if (n > 1) opts.logger.info(`${dependency} is available`, { dependency, attempts: n });
      return value;
    } catch (err) {
      if (isPermanentStartupError(err)) throw new StartupError(dependency, err);
      const delay = backoffDelay(n, base, max);
      const error = describeError(err);
      opts.logger.warn(`waiting for ${dependency}`, { dependency, attempt: n, error, retry_in_ms: delay });
      if (!(await sleep(delay, opts.signal))) throw new StartAbortedError(dependency);
    }
  }
}
