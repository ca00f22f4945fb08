export { ManagementClient, type ManagementClientOptions } from './management-client';
export { AdminClient, type AdminClientOptions } from './admin-client';
export { EventsClient, type EventsClientOptions } from './events-client';
export type { ClientOptions, FetchLike, RequestOptions } from './client-options';
export { DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT } from './client-options';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy';
export {
  ApiError,
  CampaignEventsError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ErrorDetail,
} from './errors';
export * from './enums';
export type * from './management-types';
export type * from './events-types';
export { REPORT_INTERVALS, REPORT_METRIC_PATTERN } from './events-types';
export { PIXEL_LIMITS } from './pixel-urls';
export {
  DEFAULT_REACH_EVENT,
  REPORT_FILTER_MAX_VALUES,
  campaignReach,
  type CampaignReach,
  type CampaignReachOptions,
} from './campaign-reach';
export { VERSION } from './version';
