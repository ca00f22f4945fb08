import { DEFAULT_RETRY, decideRetry, outcomeUnknown, type AttemptFailure, type RetryContext } from './retry-policy';

const status = (code: number, retryAfterMs?: number): AttemptFailure => ({
  kind: 'status',
  status: code,
  retryAfterMs,
});
const network = (notSent = false): AttemptFailure => ({ kind: 'network', notSent });
const timeout: AttemptFailure = { kind: 'timeout' };

function decide(failure: AttemptFailure, over: Partial<RetryContext> = {}) {
  return decideRetry({
    idempotent: true,
    attempt: 1,
    delayedMs: 0,
    failure,
    options: DEFAULT_RETRY,
    random: () => 0.5,
    ...over,
  });
}

describe('decideRetry', () => {
  test.each([
    ['a network error', network()],
    ['a timeout', timeout],
    ['429 without Retry-After', status(429)],
    ['502', status(502)],
    ['503 without Retry-After', status(503)],
    ['504', status(504)],
  ])('when an idempotent call fails with %s, then it is retried', (_what, failure) => {
    expect(decide(failure)).toEqual({ retry: true, delayMs: expect.any(Number) });
  });

  test.each([
    ['a network error after the request may have been sent', network(false)],
    ['a timeout', timeout],
    ['429 without Retry-After', status(429)],
    ['503 without Retry-After', status(503)],
    ['502', status(502)],
    ['504', status(504)],
  ])('when a create fails with %s, then it is not retried (it may have happened)', (_what, failure) => {
    expect(decide(failure, { idempotent: false })).toEqual({ retry: false });
  });

  test.each([400, 401, 403, 404, 409, 413, 415, 500])('when any call gets %i, then it is not retried', (code) => {
    expect(decide(status(code))).toEqual({ retry: false });
    expect(decide(status(code, 1000))).toEqual({ retry: false });
  });

  test('when a create gets 429 or 503 with Retry-After, then it is retried after exactly that wait', () => {
    expect(decide(status(429, 2000), { idempotent: false })).toEqual({ retry: true, delayMs: 2000 });
    expect(decide(status(503, 0), { idempotent: false })).toEqual({ retry: true, delayMs: 0 });
  });

  test('when the connection never opened, then even a create is retried (nothing was sent)', () => {
    expect(decide(network(true), { idempotent: false })).toEqual({ retry: true, delayMs: expect.any(Number) });
  });

  test('when Retry-After is longer than maxDelayMs or the budget left, then the call gives up instead of waiting less', () => {
    expect(decide(status(429, 5001))).toEqual({ retry: false });
    expect(decide(status(429, 4000), { delayedMs: 12000 })).toEqual({ retry: false });
    expect(decide(status(429, 3000), { delayedMs: 12000 })).toEqual({ retry: true, delayMs: 3000 });
  });

  test('when the attempts are spent, then nothing is retried', () => {
    expect(decide(status(503, 0), { attempt: 3 })).toEqual({ retry: false });
    expect(decide(network(true), { attempt: 3 })).toEqual({ retry: false });
    expect(decide(network(), { options: { ...DEFAULT_RETRY, maxAttempts: 1 } })).toEqual({ retry: false });
  });

  test('when backing off, then the ceiling doubles per attempt up to maxDelayMs and the wait is a uniform share of it', () => {
    const options = { ...DEFAULT_RETRY, maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000, maxTotalDelayMs: 100_000 };
    const ceilings = [1, 2, 3, 4, 5, 6].map((attempt) =>
      decide(network(), { attempt, options, random: () => 0.999999 }),
    );
    expect(ceilings.map((d) => (d.retry ? d.delayMs : -1))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(decide(network(), { attempt: 4, options, random: () => 0 })).toEqual({ retry: true, delayMs: 0 });
    expect(decide(network(), { attempt: 4, options, random: () => 0.5 })).toEqual({ retry: true, delayMs: 400 });
  });

  test('when the total delay budget is nearly spent, then the wait shrinks to what is left, and at zero it stops', () => {
    const options = { ...DEFAULT_RETRY, maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 1000, maxTotalDelayMs: 2500 };
    expect(decide(network(), { options, delayedMs: 2200, random: () => 0.9 })).toEqual({ retry: true, delayMs: 300 });
    expect(decide(network(), { options, delayedMs: 2500 })).toEqual({ retry: false });
  });
});

describe('outcomeUnknown', () => {
  test('when an attempt timed out, broke after sending, or met a gateway error, then its effect is unknown', () => {
    expect([timeout, network(false), status(502), status(504)].map(outcomeUnknown)).toEqual([true, true, true, true]);
  });

  test('when the connection never opened or the service answered 429/503, then nothing happened', () => {
    expect([network(true), status(503), status(429, 1000)].map(outcomeUnknown)).toEqual([false, false, false]);
  });
});
