import { insertResults } from './insert-results';

describe('insertMany results', () => {
  test('when some documents were duplicates, then they are duplicates and the others were written', () => {
    const err = {
      message: 'E11000',
      writeErrors: [
        { index: 1, code: 11000 },
        { index: 3, code: 11000 },
      ],
    };
    expect(insertResults(4, err).map((r) => r.status)).toEqual(['written', 'duplicate', 'written', 'duplicate']);
  });

  test('when the driver reports a single write error (not an array), then it is read the same', () => {
    expect(insertResults(2, { writeErrors: { index: 0, code: 11000 } }).map((r) => r.status)).toEqual([
      'duplicate',
      'written',
    ]);
  });

  test('when a document is refused for another reason, then it alone is rejected with the server message', () => {
    const results = insertResults(3, { writeErrors: [{ index: 2, code: 2, errmsg: 'bad value' }] });
    expect(results).toEqual([
      { status: 'written' },
      { status: 'written' },
      { status: 'rejected', message: 'bad value' },
    ]);
  });

  test('when the write failed as a whole (no per-document errors), then every document failed and will be retried', () => {
    expect(insertResults(2, new Error('connection closed'))).toEqual([
      { status: 'failed', message: 'connection closed' },
      { status: 'failed', message: 'connection closed' },
    ]);
  });

  test('when there is a write concern error, then no document counts as written', () => {
    const err = { message: 'wc', writeErrors: [{ index: 0, code: 11000 }], writeConcernError: { code: 64 } };
    expect(insertResults(2, err).map((r) => r.status)).toEqual(['failed', 'failed']);
  });

  test('when the store is full (per document or for the whole write), then those documents failed and wait for room, never rejected', () => {
    const perDoc = {
      message: 'the MongoDB stand-in store is full: add heap',
      code: 11000,
      writeErrors: [
        { index: 0, code: 11000 },
        { index: 1, code: 14031, errmsg: 'full' },
      ],
    };
    const results = insertResults(3, perDoc);
    expect(results.map((r) => r.status)).toEqual(['duplicate', 'failed', 'written']);
    expect(results[1]).toMatchObject({ storeFull: true, message: expect.stringContaining('the database is full') });
    const whole = insertResults(2, { code: 14031, codeName: 'OutOfDiskSpace', message: 'disk full' });
    expect(whole).toEqual([
      { status: 'failed', message: 'the database is full: disk full', storeFull: true },
      { status: 'failed', message: 'the database is full: disk full', storeFull: true },
    ]);
  });

  test('when documents are refused only because of the database state (not primary, stepping down, out of time), then they failed and are retried, never rejected', () => {
    const err = {
      message: 'bulk',
      writeErrors: [
        { index: 0, code: 10107, errmsg: 'not primary' },
        { index: 1, code: 11602, errmsg: 'interrupted due to repl state change' },
        { index: 2, code: 50, errmsg: 'operation exceeded time limit' },
        { index: 3, code: 2, errmsg: 'bad value' },
      ],
    };
    expect(insertResults(4, err)).toEqual([
      { status: 'failed', message: 'not primary' },
      { status: 'failed', message: 'interrupted due to repl state change' },
      { status: 'failed', message: 'operation exceeded time limit' },
      { status: 'rejected', message: 'bad value' },
    ]);
  });
});
