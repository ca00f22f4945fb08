import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { UnavailableError, isStoreFullError } from '@cm/platform';
import { deadlineError } from './report-budget';

const MAX_TIME_MS_EXPIRED = 50;

/** A database that is down or too slow is a 503 for the caller, not an internal error. */
export function asUnavailable(err: unknown, deadlineMs: number): UnavailableError | undefined {
  if (err instanceof MongoServerError && err.code === MAX_TIME_MS_EXPIRED) return deadlineError(deadlineMs);
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError)
    return new UnavailableError('event storage unavailable');
  if (isStoreFullError(err)) return new UnavailableError('event storage is full: an operator must free space');
  return undefined;
}
