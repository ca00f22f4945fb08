import { SLOTS } from './visitor-sample-model';

/*
 * A visitor keeps the 4 smallest country codes its events came from and a flag when there were
 * more. The 4 smallest of a union are among the 4 smallest of each side, and "more than 4" of a
 * union is "either side had more, or the kept ones together are more than 4", so merging the kept
 * sets gives what the whole set would: the same result in any merge order.
 */

const A = new Uint16Array(SLOTS + 1);
const B = new Uint16Array(SLOTS + 1);

/**
 * Writes the union of visitor `ia` of (ac, am) and visitor `ib` of (bc, bm) as visitor `w` of
 * (dc, dm). The destination may be either source, at the same or another index: both sets are read
 * before anything is written.
 */
export function unionCountriesInto(
  dc: Uint16Array,
  dm: Uint8Array,
  w: number,
  ac: Uint16Array,
  am: Uint8Array,
  ia: number,
  bc: Uint16Array,
  bm: Uint8Array,
  ib: number,
): void {
  const a = ia * SLOTS;
  const b = ib * SLOTS;
  const d = w * SLOTS;
  let more = am[ia]! | bm[ib]!;
  // the common case: one visitor, one country (or the same ones) in both parts
  if (ac[a] === bc[b] && ac[a + 1] === bc[b + 1] && ac[a + 2] === bc[b + 2] && ac[a + 3] === bc[b + 3]) {
    if (d !== a || dc !== ac) for (let k = 0; k < SLOTS; k++) dc[d + k] = ac[a + k]!;
    dm[w] = more;
    return;
  }
  for (let k = 0; k < SLOTS; k++) {
    A[k] = ac[a + k]!;
    B[k] = bc[b + k]!;
  }
  let i = 0;
  let j = 0;
  let n = 0;
  for (;;) {
    const x = A[i]!;
    const y = B[j]!;
    if (x === 0 && y === 0) break;
    let v: number;
    if (y === 0 || (x !== 0 && x < y)) {
      v = x;
      i++;
    } else if (x === 0 || y < x) {
      v = y;
      j++;
    } else {
      v = x;
      i++;
      j++;
    }
    if (n === SLOTS) {
      more = 1;
      break;
    }
    dc[d + n++] = v;
  }
  for (; n < SLOTS; n++) dc[d + n] = 0;
  dm[w] = more;
}

/** Adds country `code` (1..676; 0 is no country) to visitor `i`. */
export function addCountry(countries: Uint16Array, more: Uint8Array, i: number, code: number): void {
  if (code === 0) return;
  const d = i * SLOTS;
  let at = 0;
  while (at < SLOTS && countries[d + at] !== 0 && countries[d + at]! < code) at++;
  if (at < SLOTS && countries[d + at] === code) return;
  if (countries[d + SLOTS - 1] !== 0) more[i] = 1; // a fifth country: the largest is dropped
  if (at === SLOTS) return;
  for (let k = SLOTS - 1; k > at; k--) countries[d + k] = countries[d + k - 1]!;
  countries[d + at] = code;
}
