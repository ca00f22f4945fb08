import { RejectionCounts } from './rejection-counts';

describe('rejection counts', () => {
  test('when an event is refused again, then its count grows, and forgetting it starts again from one', () => {
    const counts = new RejectionCounts();
    expect([counts.add('a'), counts.add('a'), counts.add('b'), counts.add('a')]).toEqual([1, 2, 1, 3]);
    counts.forget('a');
    expect(counts.add('a')).toBe(1);
  });

  test('when more events are refused than the capacity, then the least recently refused is forgotten first', () => {
    const counts = new RejectionCounts(2);
    counts.add('a');
    counts.add('b');
    counts.add('a');
    counts.add('c'); // evicts b, refused longest ago
    expect(counts.size).toBe(2);
    expect(counts.add('a')).toBe(3);
    expect(counts.add('b')).toBe(1);
  });
});
