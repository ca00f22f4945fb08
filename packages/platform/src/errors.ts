/** One error type per status of the one JSON error shape; the error middleware renders them all alike. */
export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'validation_error', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or unknown credentials') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'not allowed') {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'not found') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(409, 'conflict', message, details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'request body too large') {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'unsupported media type') {
    super(415, 'unsupported_media_type', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate_limited', 'rate limit exceeded');
  }
}

/** Every 503 says when to try again (Retry-After): the condition is temporary by definition. */
export class UnavailableError extends AppError {
  constructor(
    message = 'service unavailable',
    readonly retryAfterSeconds = 1,
  ) {
    super(503, 'unavailable', message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

export function errorBody(err: AppError): ErrorBody {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details && err.details.length > 0) body.error.details = err.details;
  return body;
}
