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
  return n + Math.floor((universe - 1) / 2 ** width);
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
 * Reads n values below `universe` from bytes[from, from + eliasFanoBytes(n, universe)) (the
 * caller has checked they are there) into out[0..n-1], each mapped through `lookup` when given
 * (an index into a dictionary: the dictionary's value). Values out of order or range, a bitmap
 * of the wrong count, or padding bits that are not zero throw StoredFormatError.
 */
export function readEliasFano(
  bytes: Uint8Array,
  from: number,
  n: number,
  universe: number,
  out: { [i: number]: number },
  lookup?: Float64Array,
): void {
  const width = lowWidth(n, universe);
  const high = highBits(n, universe, width);
  const total = high + n * width;
  const end = from + Math.ceil(total / 8);
  if (end > bytes.length) throw new StoredFormatError('stored bit-coded values end early');
  const scale = 2 ** width;
  // bit positions are relative to `from`; the low bits start right after the bitmap
  let lowAt = high;
  let i = 0;
  let previous = -1;
  const highBytes = Math.ceil(high / 8);
  for (let j = 0; j < highBytes; j++) {
    let b = bytes[from + j]!;
    // the last byte of the bitmap: only its bits below `high` are the bitmap's
    if (j === highBytes - 1 && (high & 7) !== 0) b &= (1 << (high & 7)) - 1;
    while (b !== 0) {
      const bit = 31 - clz32(b & -b);
      b &= b - 1;
      if (i >= n) throw new StoredFormatError('stored bit-coded values have too many ones');
      const top = (j << 3) + bit - i;
      let low = 0;
      if (width > 0) {
        // 24 bits at a time from a 32-bit window (the bytes past the end read as zero)
        let got = 0;
        let factor = 1;
        while (got < width) {
          const p = from * 8 + lowAt + got;
          const q = p >>> 3;
          const window = (bytes[q]! | (bytes[q + 1]! << 8) | (bytes[q + 2]! << 16) | (bytes[q + 3]! << 24)) >>> (p & 7);
          const take = width - got < 24 ? width - got : 24;
          low += (window & (take === 24 ? 0xffffff : (1 << take) - 1)) * factor;
          factor *= 0x1000000;
          got += take;
        }
        lowAt += width;
      }
      const value = top * scale + low;
      if (value <= previous || value >= universe) throw new StoredFormatError('stored bit-coded values out of order');
      out[i++] = lookup ? lookup[value]! : value;
      previous = value;
    }
  }
  if (i !== n) throw new StoredFormatError('stored bit-coded values are too few');
  const padding = end * 8 - from * 8 - total;
  if (padding > 0 && bytes[end - 1]! >>> (8 - padding) !== 0)
    throw new StoredFormatError('stored bit-coded values have trailing bits');
}
