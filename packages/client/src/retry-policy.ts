/**
 * When a failed attempt may be sent again, and after how long. Pure, so every decision is unit-tested.
 *
 * - An idempotent call (GET, DELETE, the edits, the read-only report) is retried after a network
 *   error, a timeout, 429, 502, 503 or 504, with exponential backoff and full jitter.
 * - Any call, creates included, is retried on 429 or 503 that carries Retry-After (the service
 *   says it did nothing and when to come back), and after a connection that never opened
 *   (refused, unknown host): nothing was sent.
 * - Retry-After is honoured as the minimum wait; when it is longer than `maxDelayMs` or than what
 *   is left of `maxTotalDelayMs`, the call fails at once with the typed error instead.
 */

export interface RetryOptions {
  /** Attempts in total, the first included; 1 turns retries off. Default 3. */
  maxAttempts: number;
  /** First backoff ceiling; doubles per attempt. Default 250 ms. */
  baseDelayMs: number;
  /** Longest single wait (backoff or Retry-After). Default 5000 ms. */
  maxDelayMs: number;
  /** Longest sum of waits for one call. Default 15000 ms. */
  maxTotalDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 5000,
  maxTotalDelayMs: 15000,
};

/** How an attempt failed. `notSent`: the connection never opened, so the service saw nothing. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfterMs: number | undefined }
  | { kind: 'network'; notSent: boolean }
  | { kind: 'timeout' };

export interface RetryContext {
  idempotent: boolean;
  /** Attempts made so far (1 after the first). */
  attempt: number;
  /** Sum of the waits already spent on this call. */
  delayedMs: number;
  failure: AttemptFailure;
  options: RetryOptions;
  /** [0, 1); injected so tests are deterministic. */
  random: () => number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

const NO: RetryDecision = { retry: false };
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

export function decideRetry(ctx: RetryContext): RetryDecision {
  const { failure, options } = ctx;
  if (ctx.attempt >= options.maxAttempts) return NO;
  if (
    failure.kind === 'status' &&
    failure.retryAfterMs !== undefined &&
    (failure.status === 429 || failure.status === 503)
  ) {
    return honourRetryAfter(failure.retryAfterMs, ctx);
  }
  const safe = ctx.idempotent || (failure.kind === 'network' && failure.notSent);
  if (!safe) return NO;
  if (failure.kind === 'status' && !TRANSIENT_STATUSES.has(failure.status)) return NO;
  return backoff(ctx);
}

function honourRetryAfter(retryAfterMs: number, ctx: RetryContext): RetryDecision {
  const left = ctx.options.maxTotalDelayMs - ctx.delayedMs;
  if (retryAfterMs > ctx.options.maxDelayMs || retryAfterMs > left) return NO;
  return { retry: true, delayMs: retryAfterMs };
}

/** Full jitter (a uniform wait up to the doubled ceiling) spreads clients that failed together. */
function backoff(ctx: RetryContext): RetryDecision {
  const { baseDelayMs, maxDelayMs, maxTotalDelayMs } = ctx.options;
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (ctx.attempt - 1));
  const left = maxTotalDelayMs - ctx.delayedMs;
  if (left <= 0) return NO;
  return { retry: true, delayMs: Math.min(left, Math.floor(ctx.random() * ceiling)) };
}

/** Whether an earlier attempt may have reached the service, so its effect is unknown. */
export function outcomeUnknown(failure: AttemptFailure): boolean {
  if (failure.kind === 'timeout') return true;
  if (failure.kind === 'network') return !failure.notSent;
  return failure.status === 502 || failure.status === 504;
}
