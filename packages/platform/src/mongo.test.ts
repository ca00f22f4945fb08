import { OUT_OF_DISK_SPACE, isDuplicateKeyError, isStoreFullError, withoutUrlOptions } from './mongo';

describe('isStoreFullError', () => {
  test.each([
    [
      'the stand-in refusing a command',
      { code: 14031, codeName: 'OutOfDiskSpace', message: 'the MongoDB stand-in store is full: ...' },
      true,
    ],
    ['only the code name', { codeName: 'OutOfDiskSpace' }, true],
    ['the code in the error response', { errorResponse: { code: OUT_OF_DISK_SPACE } }, true],
    ['a bulk write with one such write error', { code: 11000, writeErrors: [{ code: 11000 }, { code: 14031 }] }, true],
    ['a duplicate key', { code: 11000 }, false],
    ['a bulk write of duplicates only', { writeErrors: [{ code: 11000 }] }, false],
    ['a network error', new Error('connection closed'), false],
    ['nothing', undefined, false],
    ['a string', '14031', false],
  ])('when the error is %s, then it is %s', (_what, err, expected) => {
    expect(isStoreFullError(err)).toBe(expected);
  });

  test('when the error is a duplicate key, then only isDuplicateKeyError says so', () => {
    expect(isDuplicateKeyError({ code: 11000 })).toBe(true);
    expect(isStoreFullError({ code: 11000 })).toBe(false);
  });
});

describe('withoutUrlOptions', () => {
  const defaults = { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, maxPoolSize: 50 };

  test('when MONGO_URL sets a timeout, then our default for it is left out so the URL decides', () => {
    expect(withoutUrlOptions('mongodb://db:27017/?replicaSet=rs0&serverselectiontimeoutms=800', defaults)).toEqual({
      connectTimeoutMS: 5000,
      maxPoolSize: 50,
    });
  });

  test('when MONGO_URL sets none, then every default applies', () => {
    expect(withoutUrlOptions('mongodb://user:p%40ss@db:27017', defaults)).toEqual(defaults);
  });
});
