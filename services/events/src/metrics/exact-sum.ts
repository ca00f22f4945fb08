/**
 * An exact integer of any size: a number while it is a safe integer, a bigint beyond (never a
 * bigint at or below 2^53 - 1, so one total has one form and states compare equal). Value sums
 * pass 2^53 after about 9,008 hits at the largest value; numbers keep the common case fast.
 */
export type ExactSum = number | bigint;

const LARGEST_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function exactOf(big: bigint): ExactSum {
  return big <= LARGEST_SAFE ? Number(big) : big;
}

/**
 * a + b, exactly. Two safe integers whose double sum is still safe were added exactly (a larger
 * exact sum rounds to 2^53 or more); anything else is added as bigints.
 */
export function addExact(a: ExactSum, b: ExactSum): ExactSum {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (sum <= Number.MAX_SAFE_INTEGER) return sum;
  }
  return addBig(a, b);
}

/** sum + value x events, exactly (the double product is exact while it is safe). */
export function addProduct(sum: ExactSum, value: number, events: number): ExactSum {
  const product = value * events;
  return product <= Number.MAX_SAFE_INTEGER
    ? addExact(sum, product)
    : exactOf(BigInt(sum) + BigInt(value) * BigInt(events));
}

/** Apart, so that addExact stays small enough to be inlined (measured: as fast as a plain +). */
function addBig(a: ExactSum, b: ExactSum): ExactSum {
  return exactOf(BigInt(a) + BigInt(b));
}

/** sum / events as a double: the exact quotient's integer part plus the fraction. */
export function averageOf(sum: ExactSum, events: number): number {
  if (typeof sum === 'number') return sum / events;
  const n = BigInt(events);
  return Number(sum / n) + Number(sum % n) / events;
}

/**
 * A JSON number is exact only up to 2^53, so a sum past it (a bigint) is answered as its decimal
 * digits, a string; every smaller sum stays a number.
 */
export function sumAsJson(value: ExactSum | null): number | string | null {
  return typeof value === 'bigint' ? value.toString() : value;
}
