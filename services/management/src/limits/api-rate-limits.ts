import type { RequestHandler } from 'express';
import { RateLimitedError, TokenBuckets, type TakeResult } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';

/** Which limit refused a request (the label of management_rate_limited_total). */
export type RateLimitName = 'token' | 'expensive' | 'auth_failures';

export interface RateLimitSettings {
  /** Every /api/v3 call, per api token. */
  perTokenPerMinute: number;
  /** Calls that hash a password or issue a secret (user create and edit, token rotation), per api token, on top. */
  expensivePerMinute: number;
  /** Failed bearer authentications per client address; beyond it the address is refused before any lookup. */
  authFailuresPerMinute: number;
  onLimited(limit: RateLimitName): void;
  now?: () => number;
}

/** Guards bearer auth against 401 storms (see bearer-auth.ts). */
export interface AuthFailureLimit {
  /** Throws 429 while the client has no failures left. */
  beforeAuth(client: string): void;
  failed(client: string): void;
}

export interface ApiRateLimits {
  authFailures: AuthFailureLimit;
  /** After bearer auth, before every /api/v3 route. */
  perToken: RequestHandler;
  /** On the expensive routes, after perToken. */
  expensive: RequestHandler;
}

/**
 * The /api/v3 rate limits, per process: token buckets keyed by the caller's token lookup hash
 * (never the token), and by client address for failed authentications. Refusals are 429
 * `rate_limited` with Retry-After (the error middleware sets it).
 */
export function apiRateLimits(settings: RateLimitSettings): ApiRateLimits {
  const buckets = (perMinute: number) => new TokenBuckets({ perMinute, now: settings.now });
  const perToken = buckets(settings.perTokenPerMinute);
  const expensive = buckets(settings.expensivePerMinute);
  const failures = buckets(settings.authFailuresPerMinute);
  const enforce = (limit: RateLimitName, result: TakeResult) => {
    if (result.allowed) return;
    settings.onLimited(limit);
    throw new RateLimitedError(result.retryAfterSeconds);
  };
  const byToken = (limit: RateLimitName, bucketsOf: TokenBuckets): RequestHandler => (req, _res, next) => {
    try {
      enforce(limit, bucketsOf.take(callerOf(req).token_key));
      next();
    } catch (err) {
      next(err);
    }
  };
  return {
    authFailures: {
      beforeAuth: (client) => enforce('auth_failures', failures.check(client)),
      failed: (client) => void failures.take(client),
    },
    perToken: byToken('token', perToken),
    expensive: byToken('expensive', expensive),
  };
}
