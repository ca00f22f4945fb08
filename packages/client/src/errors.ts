/**
 * Every failure the clients raise. HTTP answers outside 2xx become an ApiError subclass chosen by
 * status; transport failures become NetworkError (TimeoutError when our per-attempt timer fired).
 * Messages never contain a token or an API key: requests are described by method and path only.
 */

export interface ErrorDetail {
  field: string;
  message: string;
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[];
  retryAfterSeconds?: number;
  requestId?: string;
  /** "POST /api/v3/campaign/" — never the query string, which may hold an API key. */
  request: string;
}

/** Base of everything thrown by this package, so one `instanceof` catches them all. */
export class CampaignEventsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The service answered with a non-2xx status; fields come from `{error: {code, message, details}}`. */
export class ApiError extends CampaignEventsError {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  /** From the Retry-After header, when the service sent one. */
  readonly retryAfterSeconds: number | undefined;
  /** The service's X-Request-Id, worth quoting to the operator. */
  readonly requestId: string | undefined;
  readonly request: string;

  constructor(init: ApiErrorInit) {
    super(`${init.request} -> ${init.status} ${init.code}: ${init.message}`);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
    this.request = init.request;
  }
}

/** 400: invalid input; `details` name each field. */
export class ValidationError extends ApiError {}
/** 401: missing, unknown or revoked token / API key. */
export class UnauthorizedError extends ApiError {}
/** 403: not allowed for this caller (a sub-user managing users; a key not scoped to the owner). */
export class ForbiddenError extends ApiError {}
/** 404: unknown resource, or one that belongs to another user. */
export class NotFoundError extends ApiError {}
/** 409: duplicate e-mail or URL, a full campaign, or a concurrent edit. */
export class ConflictError extends ApiError {}
/** 413: body over the service's limit. */
export class PayloadTooLargeError extends ApiError {}
/** 415: body neither JSON nor form-encoded. */
export class UnsupportedMediaTypeError extends ApiError {}

/** 429: rate limited. `retryAfterSeconds` says when the service will take the call again. */
export class RateLimitedError extends ApiError {}

/** 503: a dependency of the service is down or the request timed out there; nothing was done. */
export class UnavailableError extends ApiError {}

/** The request did not get an HTTP answer (connection refused or reset, DNS, TLS, ...). */
export class NetworkError extends CampaignEventsError {
  constructor(
    readonly request: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${request} failed: ${message}`, options);
  }
}

/** No answer within the per-attempt `timeoutMs`. */
export class TimeoutError extends NetworkError {
  constructor(
    request: string,
    readonly timeoutMs: number,
  ) {
    super(request, `no answer within ${timeoutMs} ms`);
  }
}
