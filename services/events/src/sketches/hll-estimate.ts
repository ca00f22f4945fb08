import { MAX_RHO, TAIL_BITS } from './sketch-model';

/** 1 / (2 ln 2): the estimator's constant as the number of registers goes to infinity. */
const ALPHA_INF = 1 / (2 * Math.LN2);

/**
 * Otmar Ertl's improved raw estimator ("New cardinality estimation algorithms for HyperLogLog
 * sketches", 2017). It works on the histogram of register values and corrects both ends in closed
 * form (sigma for the empty registers, tau for the saturated ones), so it needs neither the bias
 * tables of HyperLogLog++ nor a switch to linear counting, and it stays unbiased from 0 to far
 * beyond the cardinalities a report can see. All-zero registers give 0.
 */
export function estimateCardinality(registers: Uint8Array): number {
  const m = registers.length;
  const counts = new Float64Array(MAX_RHO + 1);
  for (let i = 0; i < m; i++) counts[registers[i]!]!++;
  let z = m * tau((m - counts[MAX_RHO]!) / m);
  for (let k = TAIL_BITS; k >= 1; k--) z = 0.5 * (z + counts[k]!);
  z += m * sigma(counts[0]! / m);
  return (ALPHA_INF * m * m) / z;
}

/** sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1); infinite at 1 (all registers empty: estimate 0). */
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  let previous: number;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (z !== previous);
  return z;
}

/** tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3; 0 at both ends. */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  let previous: number;
  do {
    x = Math.sqrt(x);
    previous = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (z !== previous);
  return z / 3;
}
