import { StoredFormatError } from '../metrics/byte-codec';

/*
 * n ascending distinct whole numbers below a universe u, in bits (Elias-Fano): each value's low
 * L bits as they are, L the largest with n * 2^L <= u, and its high part v >> L in unary, as a
 * one at bit (v >> L) + i of a bitmap of n + ((u - 1) >> L) bits. That is at most 2 + log2(u / n)
 * bits a value, where a varint gap takes whole bytes (a sorted visitor hash about 5.2 bytes
 * instead of 6, an index into a unit's visitors 3 to 6 bits instead of 8), and its length
 * follows from n and u alone, so a reader steps over it without decoding it. Layout: the high
 * bitmap from the first byte's lowest bit on, then the low bits of value 0, 1, ... (lowest bit
 * first), then zero bits to the byte's end.
 */

const clz32 = Math.clz32;

/** L: the largest width with n * 2^L <= universe (0 when n >= universe). */
export function lowWidth(n: number, universe: number): number {
  // an index into a dictionary (u < 2^31): integer steps only, as a report reads thousands of sets
  if (universe < 0x80000000) {
    const q = (universe / n) | 0;
    return q < 2 ? 0 : 31 - clz32(q);
  }
  const q = Math.floor(universe / n);
  if (q < 2) return 0;
  if (q < 2 ** 31) return 31 - clz32(q);
  let width = Math.floor(Math.log2(q));
  while (2 ** width > q) width--;
  while (2 ** (width + 1) <= q) width++;
  return width;
}

/** The bits of the high bitmap. */
function highBits(n: number, universe: number, width: number): number {
  return universe < 0x80000000 ? n + ((universe - 1) >>> width) : n + Math.floor((universe - 1) / 2 ** width);
}

/** The bytes of n values below `universe` in this form (n >= 1). */
export function eliasFanoBytes(n: number, universe: number): number {
  const width = lowWidth(n, universe);
  return Math.ceil((highBits(n, universe, width) + n * width) / 8);
}

/** The stored form of `values` (ascending, distinct, each below `universe`; at least one). */
export function writeEliasFano(values: ArrayLike<number>, universe: number): Uint8Array {
  const n = values.length;
  const width = lowWidth(n, universe);
  const high = highBits(n, universe, width);
  const out = new Uint8Array(Math.ceil((high + n * width) / 8));
  const scale = 2 ** width;
  let at = high;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const top = Math.floor(v / scale);
    const p = top + i;
    out[p >>> 3]! |= 1 << (p & 7);
    let low = v - top * scale;
    let left = width;
    while (left > 0) {
      const off = at & 7;
      const take = Math.min(8 - off, left);
      const part = low % (1 << take);
      out[at >>> 3]! |= part << off;
      low = (low - part) / (1 << take);
      at += take;
      left -= take;
    }
  }
  return out;
}

/**
 * Reads n values below `universe` from bytes[from, from + eliasFanoBytes(n, universe)) into
 * out[0..n-1]. Values out of order or range, a bitmap of the wrong count, padding bits that are
 * not zero, or bytes cut short throw StoredFormatError. A few tight loops over typed arrays, each
 * its own function (the high parts from the bitmap, then the low parts from 32-bit windows, then
 * the order check), no allocation: a report decodes every set of a page this way, and one loop
 * doing all of it measured several times slower.
 */
export function readEliasFano(bytes: Uint8Array, from: number, n: number, universe: number, out: Float64Array): void {
  const width = lowWidth(n, universe);
  const high = highBits(n, universe, width);
  const total = high + n * width;
  const end = from + ((total + 7) >>> 3);
  if (end > bytes.length) throw new StoredFormatError('stored bit-coded values end early');
  if (highParts(bytes, from, n, high, out) !== n) throw new StoredFormatError('stored bit-coded values are too few');
  const padding = (end - from) * 8 - total;
  if (padding > 0 && bytes[end - 1]! >>> (8 - padding) !== 0)
    throw new StoredFormatError('stored bit-coded values have trailing bits');
  if (width <= 24) lowParts(bytes, from * 8 + high, n, width, out);
  else wideLowParts(bytes, from * 8 + high, n, width, out);
  // ascending and below the universe (the high parts alone cannot say: two equal ones differ by their low bits)
  if (!ascending(out, n, universe)) throw new StoredFormatError('stored bit-coded values out of order');
}

function ascending(out: Float64Array, n: number, universe: number): boolean {
  let previous = -1;
  for (let k = 0; k < n; k++) {
    const value = out[k]!;
    if (value <= previous) return false;
    previous = value;
  }
  return previous < universe;
}

/** The high parts (the i-th one of the bitmap at bit top + i) into out; how many ones there are (at most n + 1). */
function highParts(bytes: Uint8Array, from: number, n: number, high: number, out: Float64Array): number {
  let i = 0;
  const last = from + (high >>> 3);
  for (let j = from; j <= last; j++) {
    let b = j < last ? bytes[j]! : (high & 7) === 0 ? 0 : bytes[j]! & ((1 << (high & 7)) - 1);
    const at = (j - from) << 3;
    while (b !== 0) {
      if (i === n) return n + 1;
      out[i] = at + 31 - clz32(b & -b) - i;
      i++;
      b &= b - 1;
    }
  }
  return i;
}

/** Each value's low `width` (<= 24) bits from bit `base` on, added to its high part. */
function lowParts(bytes: Uint8Array, base: number, n: number, width: number, out: Float64Array): void {
  if (width === 0) return;
  const scale = 1 << width;
  const mask = scale - 1;
  const safe = bytes.length - 4;
  let k = 0;
  for (; k < n; k++) {
    const p = base + k * width;
    if (p >>> 3 > safe) break;
    out[k] = out[k]! * scale + ((window(bytes, p) >>> (p & 7)) & mask);
  }
  for (; k < n; k++) out[k] = out[k]! * scale + bitsAt(bytes, base + k * width, width);
}

/** The same for widths past 24 (a dictionary's hashes): 24 bits, then the rest, a window each. */
function wideLowParts(bytes: Uint8Array, base: number, n: number, width: number, out: Float64Array): void {
  const scale = 2 ** width;
  const rest = width - 24;
  if (rest > 24) {
    for (let k = 0; k < n; k++) out[k] = out[k]! * scale + bitsAt(bytes, base + k * width, width);
    return;
  }
  const mask = (1 << rest) - 1;
  // the last values may end within 4 bytes of the array's end: read a byte at a time
  const safe = bytes.length - 4;
  let k = 0;
  for (; k < n; k++) {
    const p = base + k * width;
    const q = p + 24;
    if (q >>> 3 > safe) break;
    out[k] =
      out[k]! * scale +
      ((window(bytes, p) >>> (p & 7)) & 0xffffff) +
      ((window(bytes, q) >>> (q & 7)) & mask) * 0x1000000;
  }
  for (; k < n; k++) out[k] = out[k]! * scale + bitsAt(bytes, base + k * width, width);
}

/** The 32 bits from the byte holding bit p on (the caller knows they are in the array). */
function window(bytes: Uint8Array, p: number): number {
  const q = p >>> 3;
  return (bytes[q]! | (bytes[q + 1]! << 8) | (bytes[q + 2]! << 16) | (bytes[q + 3]! << 24)) >>> 0;
}

/** `width` bits from bit p on, a byte at a time (the ends of the array, and widths past 48). */
function bitsAt(bytes: Uint8Array, p: number, width: number): number {
  let value = 0;
  let factor = 1;
  let got = 0;
  while (got < width) {
    const at = p + got;
    const off = at & 7;
    const take = Math.min(8 - off, width - got);
    value += ((bytes[at >>> 3]! >>> off) & ((1 << take) - 1)) * factor;
    factor *= 2 ** take;
    got += take;
  }
  return value;
}
