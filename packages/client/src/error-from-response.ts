import type { ErrorCode } from './enums';
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ApiErrorInit,
  type ErrorDetail,
} from './errors';

type ApiErrorClass = new (init: ApiErrorInit) => ApiError;

const BY_STATUS: Record<number, [ApiErrorClass, ErrorCode]> = {
  400: [ValidationError, 'validation_error'],
  401: [UnauthorizedError, 'unauthorized'],
  403: [ForbiddenError, 'forbidden'],
  404: [NotFoundError, 'not_found'],
  409: [ConflictError, 'conflict'],
  413: [PayloadTooLargeError, 'payload_too_large'],
  415: [UnsupportedMediaTypeError, 'unsupported_media_type'],
  429: [RateLimitedError, 'rate_limited'],
  500: [ApiError, 'internal'],
  503: [UnavailableError, 'unavailable'],
};

export interface FailedResponse {
  status: number;
  /** The raw body; anything but the one error shape (a proxy's HTML page, say) is ignored. */
  bodyText: string;
  retryAfterMs: number | undefined;
  requestId: string | undefined;
  request: string;
}

/** Chooses the error class by status (the contract) and fills it from the body when it has the one error shape. */
export function errorFromResponse(res: FailedResponse): ApiError {
  const [ErrorClass, fallbackCode] = BY_STATUS[res.status] ?? [ApiError, `http_${res.status}`];
  const shaped = readErrorShape(res.bodyText);
  return new ErrorClass({
    status: res.status,
    code: shaped?.code ?? fallbackCode,
    message: shaped?.message ?? `unexpected HTTP ${res.status} answer`,
    details: shaped?.details,
    retryAfterSeconds: res.retryAfterMs === undefined ? undefined : Math.ceil(res.retryAfterMs / 1000),
    requestId: res.requestId,
    request: res.request,
  });
}

function readErrorShape(text: string): { code: string; message: string; details?: ErrorDetail[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
  const details = Array.isArray(error.details)
    ? error.details
        .filter((d): d is ErrorDetail => typeof d?.field === 'string' && typeof d?.message === 'string')
        .map((d) => ({ field: d.field, message: d.message }))
    : undefined;
  return { code: error.code, message: error.message, details };
}
