import { KeyConcurrency } from './key-concurrency';

describe('KeyConcurrency', () => {
  test('when a key runs as many reports as allowed, then the next is refused until one is released (twice releasing counts once)', () => {
    const c = new KeyConcurrency(2);
    const a = c.acquire('k')!;
    const b = c.acquire('k')!;
    expect(c.acquire('k')).toBeUndefined();
    expect(c.acquire('other')).toBeDefined();
    a();
    a();
    const again = c.acquire('k');
    expect(again).toBeDefined();
    expect(c.acquire('k')).toBeUndefined();
    b();
    again!();
    expect(c.acquire('k')).toBeDefined();
  });
});
