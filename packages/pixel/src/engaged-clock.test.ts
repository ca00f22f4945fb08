import { ENGAGED_CAP_MS, IDLE_MS, engagedClock } from './engaged-clock';

describe('engagedClock', () => {
  test('when the visible page sees activity, then it counts until IDLE_MS after the last one', () => {
    const clock = engagedClock(1000, true);
    clock.active(3000);
    expect(clock.take(4000)).toBe(3000);
    // idle from 8000 on: 4000..8000 counts, the next 12 s do not
    expect(clock.take(20000)).toBe(4000);
    expect(clock.take(30000)).toBe(0);
  });

  test('when the page is hidden, then nothing accrues, even with activity, until it is shown again', () => {
    const clock = engagedClock(0, true);
    clock.visible(2000, false);
    clock.active(2500);
    expect(clock.take(4000)).toBe(2000);
    clock.visible(10000, true);
    // shown again 7.5 s after the last activity: idle until the reader does something
    expect(clock.take(11000)).toBe(0);
    clock.active(11000);
    expect(clock.take(12500)).toBe(1500);
  });

  test('when the page starts hidden, then its load is not engagement; activity once shown is', () => {
    const clock = engagedClock(0, false);
    expect(clock.take(3000)).toBe(0);
    clock.visible(3000, true);
    expect(clock.take(4000)).toBe(1000); // the load's 5 s have not run out
    expect(clock.take(9000)).toBe(1000);
  });

  test('when activity never stops, then the page view counts at most ENGAGED_CAP_MS over all takes', () => {
    const clock = engagedClock(0, true);
    let sum = 0;
    for (let t = 1000; t <= 2 * ENGAGED_CAP_MS; t += 1000) {
      clock.active(t);
      if (t % 600000 === 0) sum += clock.take(t);
    }
    sum += clock.take(2 * ENGAGED_CAP_MS + IDLE_MS);
    expect(sum).toBe(ENGAGED_CAP_MS);
    expect(clock.take(3 * ENGAGED_CAP_MS)).toBe(0);
  });

  test('when timestamps have fractions, then each take is whole milliseconds and the takes sum to the rounded total', () => {
    const clock = engagedClock(0.4, true);
    const takes = [clock.take(1.2), clock.take(2.9), clock.take(3.3), clock.take(1000.6)];
    for (const take of takes) expect(Number.isInteger(take)).toBe(true);
    expect(takes.reduce((a, b) => a + b, 0)).toBe(1000);
  });

  test('when a timestamp goes backwards, then no time is counted twice', () => {
    const clock = engagedClock(0, true);
    expect(clock.take(3000)).toBe(3000);
    clock.active(2000);
    expect(clock.take(4000)).toBe(1000);
  });
});
