import { MongoError, MongoNetworkError, MongoOperationTimeoutError, MongoServerSelectionError } from 'mongodb';

/**
 * Server codes that mean "the database cannot serve this now" rather than "this request is
 * wrong": no primary to write to, a node stepping down or shutting down, a time limit reached.
 * A retry later can succeed, so the caller gets a 503 with Retry-After instead of a 500.
 */
export const DATABASE_UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (a replication wait timed out)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Driver errors that are not exported as classes (or only by older drivers): matched by name. */
const UNAVAILABLE_NAMES = new Set([
  'MongoTimeoutError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
]);

/** The driver's label on errors a retry may fix: network failures and the not-primary family. */
const RETRYABLE_LABEL = 'RetryableWriteError';

/**
 * Is this failure the database being unreachable, failing over or out of time (as opposed to a
 * rejected document or a bug)? The one error middleware maps it to 503 `unavailable`.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoOperationTimeoutError
  )
    return true;
  if (!(err instanceof MongoError)) return false;
  if (UNAVAILABLE_NAMES.has(err.name)) return true;
  if (err.hasErrorLabel(RETRYABLE_LABEL)) return true;
  return codesOf(err).some((code) => DATABASE_UNAVAILABLE_CODES.has(code));
}

/** The error's own code and a write concern error's (reported inside a write result). */
function codesOf(err: MongoError): number[] {
  const e = err as MongoError & {
    writeConcernError?: { code?: unknown };
    errorResponse?: { writeConcernError?: { code?: unknown } };
  };
  return [err.code, e.writeConcernError?.code, e.errorResponse?.writeConcernError?.code].filter(
    (c): c is number => typeof c === 'number',
  );
}
