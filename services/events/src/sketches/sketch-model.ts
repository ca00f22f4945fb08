/** precision 14 (16,384 registers), exact up to EXACT_LIMIT distinct hashes, 52-bit input hashes */
export const DISTINCT_SKETCH: {
  precision: 14;
  registers: 16384;
  exactLimit: 4096;
  relativeStandardError: number;
} = Object.freeze({
  precision: 14,
  registers: 16384,
  exactLimit: 4096,
  relativeStandardError: 1.04 / Math.sqrt(16384),
});

/**
 * The distinct hashes seen so far: the set itself while it is small, else HyperLogLog registers.
 * Immutable from the caller's view; only `mergeInto` writes, and only into its own target.
 */
export type DistinctSketch =
  | { kind: 'exact'; hashes: readonly number[] /* sorted ascending, unique, length <= exactLimit */ }
  | { kind: 'hll'; registers: Uint8Array /* length 16384, values 0..39 */ };

export type ExactSketch = Extract<DistinctSketch, { kind: 'exact' }>;
export type HllSketch = Extract<DistinctSketch, { kind: 'hll' }>;

/** Bits of a visitor hash, and the bits left after the register index (Ertl's q). */
const HASH_BITS = 52;
export const TAIL_BITS = HASH_BITS - DISTINCT_SKETCH.precision;
/** The largest register value: every tail bit zero. */
export const MAX_RHO = TAIL_BITS + 1;

const TAIL_SPAN = 2 ** TAIL_BITS;
// Hot loops below use no global (Math.*, Number.*): inside a vm context, as under Jest, each
// global lookup costs about 200 ns, forty times the work of placing a hash.
const clz32 = Math.clz32;
const HASH_SPAN = 2 ** HASH_BITS;
const LOW_SPAN = 2 ** 32;

export const EMPTY_SKETCH: DistinctSketch = Object.freeze({ kind: 'exact', hashes: Object.freeze([] as number[]) });

/** A hash the sketch was not made for would land in no register or in a wrong one: refuse it. */
export function checkHash(hash: number): void {
  if (!(typeof hash === 'number' && hash >= 0 && hash < HASH_SPAN && hash % 1 === 0)) {
    throw new RangeError(`a distinct-sketch hash is an integer in [0, 2^52), got ${String(hash)}`);
  }
}

/**
 * Raise the register of one hash: the index is the top 14 bits, the value the number of leading
 * zeros of the remaining 38 bits plus one. Division, not shifts, because the hash has more than
 * 32 bits; `| 0` truncates the quotients, which are small and never negative.
 */
export function addToRegisters(registers: Uint8Array, hash: number): void {
  const index = (hash / TAIL_SPAN) | 0;
  const tail = hash - index * TAIL_SPAN;
  const high = (tail / LOW_SPAN) | 0;
  const rho =
    high !== 0 ? clz32(high) - (32 - (TAIL_BITS - 32)) + 1 : tail === 0 ? MAX_RHO : TAIL_BITS - 32 + clz32(tail) + 1;
  if (rho > registers[index]!) registers[index] = rho;
}

export function registersOf(...sets: ReadonlyArray<readonly number[]>): Uint8Array {
  const registers = new Uint8Array(DISTINCT_SKETCH.registers);
  for (const hashes of sets) for (let i = 0; i < hashes.length; i++) addToRegisters(registers, hashes[i]!);
  return registers;
}

export function exactSketch(hashes: readonly number[]): ExactSketch {
  return { kind: 'exact', hashes };
}

export function hllSketch(registers: Uint8Array): HllSketch {
  return { kind: 'hll', registers };
}
