import {
  deadLettered,
  dropped,
  duplicate,
  messageOutcome,
  retry,
  retryDelay,
  settlementFor,
  written,
} from './consumer-outcome';

describe('consumer outcomes', () => {
  test.each([
    ['every event written', [written, written], { kind: 'done' }],
    [
      'written, duplicate, dropped and dead-lettered alone',
      [written, duplicate, dropped('old'), deadLettered('invalid')],
      { kind: 'done' },
    ],
    [
      'one event to retry among written ones',
      [written, retry('mongo down'), written],
      { kind: 'retry', reason: 'mongo down', delayMs: 400 },
    ],
  ])('when a message holds %s, then its outcome is right', (_what, events, expected) => {
    expect(messageOutcome(events, () => 400)).toMatchObject({ ...expected, events });
  });

  test.each([
    ['done', messageOutcome([written], () => 0), { action: 'ack' }],
    [
      'dead_lettered',
      { kind: 'dead_lettered' as const, reason: 'undecodable' },
      { action: 'term', reason: 'undecodable' },
    ],
    ['retry', messageOutcome([retry('mongo down')], () => 400), { action: 'nak', delayMs: 400 }],
  ])('when the outcome is %s, then the message is settled as %j', (_kind, outcome, settlement) => {
    expect(settlementFor(outcome)).toEqual(settlement);
  });

  test('when deliveries repeat, then the retry delay doubles up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, 1000, 30_000))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(retryDelay(10_000, 1000, 60_000)).toBe(60_000);
    expect(retryDelay(0, 1000, 60_000)).toBe(1000);
  });
});
