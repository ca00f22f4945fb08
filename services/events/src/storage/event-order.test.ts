import { isLaterEvent } from './event-order';

describe('isLaterEvent', () => {
  test('when two events differ in created, then the later created wins whatever the ids', () => {
    expect(isLaterEvent(2, 'a', 1, 'z')).toBe(true);
    expect(isLaterEvent(1, 'z', 2, 'a')).toBe(false);
  });

  test('when two events share a millisecond, then the greater (later UUIDv7) id wins, and an event is not later than itself', () => {
    expect(isLaterEvent(1, '0190-b', 1, '0190-a')).toBe(true);
    expect(isLaterEvent(1, '0190-a', 1, '0190-b')).toBe(false);
    expect(isLaterEvent(1, '0190-a', 1, '0190-a')).toBe(false);
  });
});
