import { scrollDepth } from './scroll-depth';

describe('scrollDepth', () => {
  test('when the viewport bottom is part-way down the document, then it is that share in whole percent', () => {
    expect(scrollDepth(720, 5000)).toBe(14);
    expect(scrollDepth(2500, 5000)).toBe(50);
    expect(scrollDepth(4999.5, 5000)).toBe(100);
  });

  test('when the document is no taller than the viewport, or its height is unknown, then it is 100', () => {
    expect(scrollDepth(720, 400)).toBe(100);
    expect(scrollDepth(720, 720)).toBe(100);
    expect(scrollDepth(720, 0)).toBe(100);
    expect(scrollDepth(720, NaN)).toBe(100);
  });

  test('when the viewport is reported as nothing, then it is 0, never negative', () => {
    expect(scrollDepth(0, 5000)).toBe(0);
    expect(scrollDepth(-10, 5000)).toBe(0);
  });
});
