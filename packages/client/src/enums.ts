/**
 * The exact enumerated values the APIs accept, as runtime lists for pickers and as string
 * literal unions for the compiler. A unit test keeps them equal to the OpenAPI documents.
 */
export const CATEGORIES = [
  'Alcohol',
  'Auto',
  'Beauty',
  'Charity',
  'Education',
  'Entertainment',
  'Fashion',
  'Finance',
  'Food / Drink',
  'Health & Fitness',
  'Retail',
  'Technology',
  'Travel & Tourism',
  'Other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const OBJECTIVES = [
  'Page Views',
  'Uniques',
  'Social Engagement',
  'Attention',
  'Reach',
  'Combination',
  'Conversion',
  'Brand Lift',
  'Brand Awareness',
] as const;
export type Objective = (typeof OBJECTIVES)[number];

export const CONTENT_TYPES = [
  'Article',
  'Content Hub',
  'Image Gallery',
  'Infographic',
  'List',
  'Quiz',
  'RSS Feed',
  'Video & Article',
  'Video',
  'Long Form',
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const CONTENT_STATES = ['active', 'inactive'] as const;
export type ContentState = (typeof CONTENT_STATES)[number];

export const DEVICE_TYPES = ['desktop', 'tablet', 'mobile'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** The `code` of the services' one JSON error shape. */
export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
