import type { RequestHandler } from 'express';
import { RateLimitedError, TokenBuckets, type TakeResult } from '@cm/platform';
import { callerOf } from '../auth/authenticated-user';

/** Which limit refused a request (the label of management_rate_limited_total). */
type RateLimitName = 'user' | 'expensive' | 'auth_failures';

export interface RateLimitSettings {
  /** Every /api/v3 call, per user. */
  perUserPerMinute: number;
  /** Calls that hash a password or issue a secret (user create and edit, token rotation), per user, on top. */
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
  perUser: RequestHandler;
  /** On the expensive routes, after perUser. */
  expensive: RequestHandler;
}

/**
 * The /api/v3 rate limits, per process: token buckets keyed by the caller's unique_id, and by
 * client address for failed authentications. Keyed by the user rather than its api token, because
 * a user can rotate its token at will: a bucket per token would start full after every rotation.
 * Refusals are 429 `rate_limited` with Retry-After (the error middleware sets it).
 */
export function apiRateLimits(settings: RateLimitSettings): ApiRateLimits {
  // a full bucket holds one minute's worth
  const buckets = (perMinute: number) =>
    new TokenBuckets({ perSecond: perMinute / 60, burst: perMinute, now: settings.now });
  const perUser = buckets(settings.perUserPerMinute);
  const expensive = buckets(settings.expensivePerMinute);
  const failures = buckets(settings.authFailuresPerMinute);
  const enforce = (limit: RateLimitName, result: TakeResult) => {
    if (result.allowed) return;
    settings.onLimited(limit);
    throw new RateLimitedError(result.retryAfterSeconds);
  };
  const byUser =
    (limit: RateLimitName, bucketsOf: TokenBuckets): RequestHandler =>
    (req, _res, next) => {
      try {
        enforce(limit, bucketsOf.take(callerOf(req).unique_id));
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
    perUser: byUser('user', perUser),
    expensive: byUser('expensive', expensive),
  };
}
