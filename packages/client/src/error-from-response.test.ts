import { errorFromResponse, type FailedResponse } from './error-from-response';
import {
  ApiError,
  CampaignEventsError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './errors';

const failed = (over: Partial<FailedResponse>): FailedResponse => ({
  status: 400,
  bodyText: '',
  retryAfterMs: undefined,
  requestId: undefined,
  request: 'POST /api/v3/campaign/',
  ...over,
});
const shaped = (code: string, message: string, details?: unknown) =>
  JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } });

describe('errorFromResponse', () => {
  test.each([
    [400, ValidationError, 'validation_error'],
    [401, UnauthorizedError, 'unauthorized'],
    [403, ForbiddenError, 'forbidden'],
    [404, NotFoundError, 'not_found'],
    [409, ConflictError, 'conflict'],
    [413, PayloadTooLargeError, 'payload_too_large'],
    [415, UnsupportedMediaTypeError, 'unsupported_media_type'],
    [429, RateLimitedError, 'rate_limited'],
    [503, UnavailableError, 'unavailable'],
  ])('when the status is %i, then the error is a %p with the code %s', (status, ErrorClass, code) => {
    const error = errorFromResponse(failed({ status, bodyText: shaped(code, 'no') }));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(CampaignEventsError);
    expect(error).toMatchObject({ status, code, name: ErrorClass.name });
  });

  test('when the body has the one error shape, then code, message and details come from it', () => {
    const details = [{ field: 'start_date', message: 'start_date must not be after end_date' }];
    const error = errorFromResponse(
      failed({ bodyText: shaped('validation_error', 'invalid campaign', details), requestId: 'req-1' }),
    );
    expect(error).toMatchObject({
      code: 'validation_error',
      details,
      requestId: 'req-1',
      request: 'POST /api/v3/campaign/',
    });
    expect(error.message).toBe('POST /api/v3/campaign/ -> 400 validation_error: invalid campaign');
  });

  test('when the body is not the error shape (a proxy page, malformed details), then the status decides and junk is dropped', () => {
    const html = errorFromResponse(failed({ status: 502, bodyText: '<html>Bad Gateway</html>' }));
    expect(html).toBeInstanceOf(ApiError);
    expect(html).toMatchObject({
      status: 502,
      code: 'http_502',
      message: expect.stringContaining('unexpected HTTP 502 answer'),
      details: [],
    });
    expect(errorFromResponse(failed({ status: 500, bodyText: '' })).code).toBe('internal');
    const mixed = errorFromResponse(
      failed({ bodyText: shaped('validation_error', 'bad', [{ field: 'a', message: 'm' }, { field: 1 }, null]) }),
    );
    expect(mixed.details).toEqual([{ field: 'a', message: 'm' }]);
    expect(errorFromResponse(failed({ status: 404, bodyText: '{"error":"nope"}' }))).toMatchObject({
      code: 'not_found',
    });
  });

  test('when Retry-After was sent, then retryAfterSeconds carries it rounded up', () => {
    expect(errorFromResponse(failed({ status: 429, retryAfterMs: 1200 })).retryAfterSeconds).toBe(2);
    expect(errorFromResponse(failed({ status: 503, retryAfterMs: 0 })).retryAfterSeconds).toBe(0);
    expect(errorFromResponse(failed({ status: 429 })).retryAfterSeconds).toBeUndefined();
  });
});
