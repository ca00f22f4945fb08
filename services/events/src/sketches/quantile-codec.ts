import { QUANTILE_MAX_BINS, type QuantileSketch } from './quantile-sketch';

/*
 * Stored form, version 1 (docs/sketch-format.md): byte 1 (the version, which fixes α = 1 % and
 * the bin mapping), then unsigned LEB128 varints: the zero count, the number of bins, and per bin
 * (ascending) the index's distance from the previous bin's index (the first from -1) and its count.
 * Counts go up to 2^53 (varints of up to 8 bytes), so they are written with arithmetic, not bit
 * operations on 32-bit integers.
 */

/** A stored quantile sketch this build cannot read: an unknown version (a newer writer) or damaged bytes. */
export class QuantileFormatError extends Error {}

const VERSION = 1;

export function encodeQuantiles(s: QuantileSketch): Uint8Array {
  const out: number[] = [VERSION];
  writeVarint(out, s.zeros);
  writeVarint(out, s.indexes.length);
  let previous = -1;
  for (let i = 0; i < s.indexes.length; i++) {
    writeVarint(out, s.indexes[i]! - previous);
    writeVarint(out, s.counts[i]!);
    previous = s.indexes[i]!;
  }
  return Uint8Array.from(out);
}

export function decodeQuantiles(bytes: Uint8Array): QuantileSketch {
  if (bytes.length === 0 || bytes[0] !== VERSION)
    throw new QuantileFormatError(`unknown quantile sketch version ${bytes[0] ?? '(none)'}`);
  const at = { i: 1 };
  const zeros = readVarint(bytes, at);
  const bins = readVarint(bytes, at);
  if (bins > QUANTILE_MAX_BINS)
    throw new QuantileFormatError(`a quantile sketch has at most ${QUANTILE_MAX_BINS} bins`);
  const indexes: number[] = new Array<number>(bins);
  const counts: number[] = new Array<number>(bins);
  let previous = -1;
  for (let b = 0; b < bins; b++) {
    const gap = readVarint(bytes, at);
    if (gap < 1) throw new QuantileFormatError('quantile sketch bins must ascend');
    indexes[b] = previous += gap;
    counts[b] = readVarint(bytes, at);
    if (counts[b] === 0 || previous >= QUANTILE_MAX_BINS) throw new QuantileFormatError('damaged quantile sketch bin');
  }
  if (at.i !== bytes.length) throw new QuantileFormatError('trailing bytes after a quantile sketch');
  return { zeros, indexes, counts };
}

function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function readVarint(bytes: Uint8Array, at: { i: number }): number {
  let value = 0;
  let scale = 1;
  for (let k = 0; k < 8; k++) {
    if (at.i >= bytes.length) throw new QuantileFormatError('truncated quantile sketch');
    const byte = bytes[at.i++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
  throw new QuantileFormatError('a quantile sketch varint is longer than 8 bytes');
}
