import {
  MongoError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { isDatabaseUnavailable } from './database-unavailable';

const serverError = (code: number, codeName: string) =>
  new MongoServerError({ ok: 0, code, codeName, errmsg: codeName });

describe('isDatabaseUnavailable', () => {
  test.each([
    [
      'a server selection timeout',
      new MongoServerSelectionError('Server selection timed out after 500 ms', {
        type: 'Unknown',
        servers: new Map(),
      } as never),
    ],
    ['a network error', new MongoNetworkError('connection reset')],
    ['a network timeout', new MongoNetworkTimeoutError('socket timed out')],
    ['an operation timeout', new MongoOperationTimeoutError('timed out')],
    ['the 3.x driver timeout (by name)', named('MongoTimeoutError', 'timed out')],
    ['a cleared pool (by name)', named('MongoPoolClearedError', 'pool cleared')],
    ['a checkout wait timeout (by name)', named('MongoWaitQueueTimeoutError', 'wait queue')],
    ['not writable primary', serverError(10107, 'NotWritablePrimary')],
    ['not primary, no secondaryOk', serverError(13435, 'NotPrimaryNoSecondaryOk')],
    ['a primary stepping down', serverError(189, 'PrimarySteppedDown')],
    ['an interrupted replica set state change', serverError(11602, 'InterruptedDueToReplStateChange')],
    ['a shutdown in progress', serverError(91, 'ShutdownInProgress')],
    ['maxTimeMS expired', serverError(50, 'MaxTimeMSExpired')],
    ['an exceeded time limit', serverError(262, 'ExceededTimeLimit')],
    [
      'a write concern timeout',
      new MongoWriteConcernError({
        writeConcernError: {
          code: 64,
          codeName: 'WriteConcernFailed',
          errmsg: 'waiting for replication timed out',
          errInfo: { wtimeout: true },
        },
      } as never),
    ],
    [
      'a server error the driver labels retryable (a replica set failing over)',
      labelled(serverError(134, 'ReadConcernMajorityNotAvailableYet'), 'RetryableWriteError'),
    ],
  ])('when the driver reports %s, then the database is unavailable', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  test.each([
    ['a duplicate key', serverError(11000, 'DuplicateKey')],
    ['a bad query', serverError(2, 'BadValue')],
    ['a plain error', new Error('boom')],
    ['a non-error', 'MongoNetworkError'],
    ['nothing', undefined],
  ])('when the failure is %s, then it is not an unavailability', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

function labelled<T extends MongoError>(err: T, label: string): T {
  err.addErrorLabel(label);
  return err;
}

/** A driver error class this driver version does not export, as the driver would raise it. */
function named(name: string, message: string): MongoError {
  return new (class extends MongoError {
    override get name(): string {
      return name;
    }
  })(message);
}
