/**
 * How much of the document the reader has had on screen, in whole percent (0..100): the bottom of
 * the viewport against the document's height. A document no taller than the viewport is 100.
 */
export function scrollDepth(viewportBottom: number, documentHeight: number): number {
  if (!(documentHeight > viewportBottom)) return 100;
  return Math.max(0, Math.round((viewportBottom / documentHeight) * 100));
}
