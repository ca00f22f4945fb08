import { deadLettered, dropped, duplicate, retry, retryDelay, settlementFor, written } from './consumer-outcome';

describe('consumer outcomes', () => {
  test.each([
    ['written', written, { action: 'ack' }],
    ['duplicate', duplicate, { action: 'ack' }],
    ['dropped', dropped('old'), { action: 'ack' }],
    ['dead_lettered', deadLettered('undecodable'), { action: 'term', reason: 'undecodable' }],
    ['retry', retry('mongo down', 400), { action: 'nak', delayMs: 400 }],
  ])('when the outcome is %s, then the message is settled as %j', (_kind, outcome, settlement) => {
    expect(settlementFor(outcome)).toEqual(settlement);
  });

  test('when deliveries repeat, then the retry delay doubles up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, 1000, 30_000))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(retryDelay(10_000, 1000, 60_000)).toBe(60_000);
    expect(retryDelay(0, 1000, 60_000)).toBe(1000);
  });
});
