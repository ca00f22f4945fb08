import { readsRawLikely } from './raw-likely';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-27T02:40:12.345Z');
const DAY_AGO = (n: number) => Date.parse('2026-11-27T00:00:00Z') - n * DAY;

test('when every span lies on whole hours and ended days ago, then raw reads are not expected', () => {
  expect(readsRawLikely([{ start: DAY_AGO(30), end: DAY_AGO(2) }], NOW)).toBe(false);
  expect(readsRawLikely([{ start: DAY_AGO(5) + 4 * HOUR, end: DAY_AGO(5) + 5 * HOUR, time: DAY_AGO(5) }], NOW)).toBe(
    false,
  );
});

test('when a span starts or ends off the hour (a range to the second, a zone 30 minutes off UTC), then raw reads are expected', () => {
  expect(readsRawLikely([{ start: DAY_AGO(10) + 90_000, end: DAY_AGO(3) }], NOW)).toBe(true);
  expect(readsRawLikely([{ start: DAY_AGO(10), end: DAY_AGO(3) - 1000 }], NOW)).toBe(true);
  // Asia/Kolkata's day starts at 18:30 UTC
  const kolkata = DAY_AGO(8) - 5.5 * HOUR;
  expect(readsRawLikely([{ start: kolkata, end: kolkata + DAY, time: kolkata }], NOW)).toBe(true);
});

test('when a span ends today or within the last day, then raw reads are expected', () => {
  expect(readsRawLikely([{ start: DAY_AGO(30), end: DAY_AGO(-1) }], NOW)).toBe(true);
  expect(readsRawLikely([{ start: DAY_AGO(1), end: DAY_AGO(0) }], NOW)).toBe(true);
});

test('when only the last of many series spans is recent, then raw reads are expected', () => {
  const spans = Array.from({ length: 30 }, (_, i) => ({ start: DAY_AGO(30 - i), end: DAY_AGO(29 - i), time: 0 }));
  expect(readsRawLikely(spans.slice(0, 28), NOW)).toBe(false);
  expect(readsRawLikely(spans, NOW)).toBe(true);
});

test('when there is no span, then nothing is read', () => {
  expect(readsRawLikely([], NOW)).toBe(false);
});
