import { DEFAULT_RETRY, type RetryOptions } from './retry-policy';
import { VERSION } from './version';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** What every client takes besides its addresses and credentials. */
export interface ClientOptions {
  /** Defaults to the platform's global fetch (Node >= 18, browsers). */
  fetch?: FetchLike;
  /** Overrides of the retry policy (see README, "Retries"). */
  retry?: Partial<RetryOptions>;
  /** Per attempt, the whole answer included. Default 30000 ms. */
  timeoutMs?: number;
  /** Sent as User-Agent where the platform allows it. */
  userAgent?: string;
}

/** Per call: cancel with `signal`, or tighten the timeout and retry policy for this call only. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
}

export interface TransportConfig {
  baseUrl: string;
  fetch: FetchLike;
  retry: RetryOptions;
  timeoutMs: number;
  userAgent: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_USER_AGENT = `campaign-events-client/${VERSION}`;

/** Fails fast on a configuration that could only fail later, and far from its cause. */
export function resolveTransportConfig(baseUrl: string, options: ClientOptions, what: string): TransportConfig {
  return {
    baseUrl: normaliseBaseUrl(baseUrl, what),
    // Looked up per call and called unbound-safe: browsers reject a fetch detached from window.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    retry: resolveRetry(DEFAULT_RETRY, options.retry),
    timeoutMs: positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
  };
}

export function resolveRetry(base: RetryOptions, override: Partial<RetryOptions> | undefined): RetryOptions {
  const merged = { ...base, ...override };
  if (!Number.isInteger(merged.maxAttempts) || merged.maxAttempts < 1)
    throw new RangeError('retry.maxAttempts must be an integer >= 1');
  for (const key of ['baseDelayMs', 'maxDelayMs', 'maxTotalDelayMs'] as const) {
    if (!Number.isFinite(merged[key]) || merged[key] < 0) throw new RangeError(`retry.${key} must be a number >= 0`);
  }
  return merged;
}

export function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a number > 0`);
  return value;
}

function normaliseBaseUrl(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`${what} must be an absolute http(s) URL`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new TypeError(`${what} must be an http(s) URL without query, fragment or credentials`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Path segments (ids, tokens) must be non-empty strings; encoded so they cannot change the path. */
export function segment(value: string, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  return encodeURIComponent(value);
}
