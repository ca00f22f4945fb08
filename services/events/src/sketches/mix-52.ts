// no global lookups in hot loops (sketch-model.ts says why)
const imul = Math.imul;
const HIGH = 2 ** 32;

/**
 * A well-mixed unsigned 32-bit number from an integer in [0, 2^53) (a visitor hash, a packed group
 * key): both halves mixed, so integers alike in their low bits (sequential ids, multiples of 2^32)
 * still spread over a table's slots. Truncations, not `%`: a remainder of doubles is a call to
 * fmod, a third of a table insert's time.
 */
export function mix52(value: number): number {
  return imul((value >>> 0) ^ imul((value / HIGH) | 0, 0x85ebca6b), 0x9e3779b1) >>> 0;
}
