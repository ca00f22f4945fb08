import { Writable } from 'node:stream';
import winston from 'winston';
import { ConfigError } from './config';
import { StartAbortedError, StartupError, backoffDelay, isPermanentStartupError, retryUntil } from './retry-until';

/** A logger whose JSON lines land in an array (the test's eyes on what an operator would read). */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return {
    logger: winston.createLogger({
      level: 'info',
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream: sink })],
    }),
    lines,
  };
}

const fast = { baseDelayMs: 1, maxDelayMs: 4 };

describe('backoffDelay', () => {
  test.each([
    [1, 0, 50],
    [1, 1, 100],
    [2, 1, 200],
    [4, 1, 800],
    [10, 1, 5000],
    [60, 1, 5000],
    [10, 0, 2500],
  ])(
    'when attempt %d fails with random %d (base 100 ms, max 5 s), then the wait is %d ms',
    (attempt, random, expected) => {
      expect(backoffDelay(attempt, 100, 5000, () => random)).toBe(expected);
    },
  );
});

describe('isPermanentStartupError', () => {
  test.each([
    ['our configuration error', new ConfigError('MONGO_URL cannot be used'), true],
    ['a MongoDB parse error', Object.assign(new Error('bad option'), { name: 'MongoParseError' }), true],
    [
      'MongoDB authentication failed',
      Object.assign(new Error('auth failed'), { name: 'MongoServerError', code: 18 }),
      true,
    ],
    ['a NATS authorization violation', new Error("'Authorization Violation'"), true],
    [
      'MongoDB not reachable',
      Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' }),
      false,
    ],
    ['NATS connection refused', Object.assign(new Error('connection refused'), { code: 'CONNECTION_REFUSED' }), false],
    ['a JetStream timeout while the cluster elects', Object.assign(new Error('timeout'), { code: 'TIMEOUT' }), false],
    ['JetStream temporarily unavailable', new Error('JetStream system temporarily unavailable'), false],
    ['a string', 'boom', false],
  ])('when the error is %s, then permanent is %s', (_what, err, permanent) => {
    expect(isPermanentStartupError(err)).toBe(permanent);
  });
});

describe('retryUntil', () => {
  test('when the attempt fails twice and then succeeds, then it returns the value after logging each failure with the dependency', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const value = await retryUntil(
      'nats',
      async () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error('connection refused'), { code: 'CONNECTION_REFUSED' });
        return 'connected';
      },
      { logger, ...fast },
    );
    expect(value).toBe('connected');
    expect(
      lines.filter((l) => l.message === 'waiting for nats').map((l) => [l.dependency, l.attempt, l.error]),
    ).toEqual([
      ['nats', 1, 'connection refused (CONNECTION_REFUSED)'],
      ['nats', 2, 'connection refused (CONNECTION_REFUSED)'],
    ]);
    expect(lines.at(-1)).toMatchObject({ message: 'nats is available', attempts: 3 });
  });

  test('when the error is permanent, then it fails at once with a StartupError naming the dependency', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const run = retryUntil(
      'mongo',
      async () => {
        calls += 1;
        throw new ConfigError('MONGO_URL cannot be used: bad port');
      },
      { logger, ...fast },
    );
    await expect(run).rejects.toThrow(StartupError);
    await expect(run).rejects.toThrow(/^mongo: MONGO_URL cannot be used: bad port \(not retried/);
    expect(calls).toBe(1);
    expect(lines).toEqual([]);
  });

  test('when the signal aborts during a wait, then it ends with StartAbortedError', async () => {
    const { logger, lines } = capturingLogger();
    const aborter = new AbortController();
    const run = retryUntil(
      'jetstream',
      async () => {
        throw new Error('timeout');
      },
      { logger, signal: aborter.signal, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    );
    // the failed attempt is logged before the 60 s wait begins
    while (lines.length === 0) await new Promise((r) => setImmediate(r));
    aborter.abort();
    await expect(run).rejects.toThrow(StartAbortedError);
  });

  test('when the signal was aborted before but the attempt succeeds, then the value is returned (start-up completes, then drains)', async () => {
    const { logger } = capturingLogger();
    const aborter = new AbortController();
    aborter.abort();
    await expect(retryUntil('mongo', async () => 'ok', { logger, signal: aborter.signal })).resolves.toBe('ok');
  });
});
