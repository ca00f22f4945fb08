import { StoredFormatError, type ByteReader, type ByteWriter, type HashPositions } from '../metrics/byte-codec';
import { eliasFanoBytes, readEliasFano, writeEliasFano } from './elias-fano';
import { denseBytes, raiseDense, raiseSparse, sparseBytes } from './sketch-codec';
import { DISTINCT_SKETCH, EMPTY_SKETCH, exactSketch, hllSketch, type DistinctSketch } from './sketch-model';

/*
 * The binary stored form of a distinct sketch (rollup cells, docs/sketch-format.md "binary"):
 * a kind byte, then 0 empty; 1 exact: the count, then the ascending hashes, the first as a
 * varint and each next as its difference to the one before; 2 sparse registers and 3 dense
 * registers in the byte layouts of the text form (s1, d1), the sparse ones length-prefixed.
 * Registers are written in whichever is shorter, so one set has one stored form. 4 (page format
 * 5): an exact set whose every hash is in the page's visitor dictionary (visitor-dictionary.ts),
 * as the count, then the ascending indexes into it, the first as a varint and each next as its
 * difference to the one before; written in place of 1 whenever the writer has a dictionary
 * holding the whole set. 5 (page format 5): the same set as a bitmap over the dictionary, a bit
 * per visitor in its order (the last byte's unused bits zero), when that is shorter than the
 * indexes (a set holding more than about an eighth of the dictionary, such as an event name's or
 * a country's). 6 (page format 6): the same set as the count, then its indexes in bits
 * (elias-fano.ts, over the dictionary's size: 3 to 6 bits an index where a varint gap takes 8),
 * when that is the shortest of 4, 5 and 6.
 */

const M = DISTINCT_SKETCH.registers;
const DENSE_BYTES = (M * 6) / 8;
const HASH_LIMIT = 2 ** 52;
// no global lookup in the bitmap's loop (each costs far more than the loop's work inside a vm context, as under Jest)
const clz32 = Math.clz32;
/** A kind-6 set's indexes as decoded, before they become hashes (one buffer: no allocation per set). */
const INDEXES = new Float64Array(DISTINCT_SKETCH.exactLimit);

export function writeSketch(w: ByteWriter, s: DistinctSketch): void {
  if (s.kind === 'exact') {
    if (s.hashes.length === 0) return w.byte(0);
    if (w.visitors && writeIndexes(w, s.hashes, w.visitors)) return;
    w.byte(1);
    w.uint(s.hashes.length);
    let previous = 0;
    for (let i = 0; i < s.hashes.length; i++) {
      w.uint(s.hashes[i]! - previous);
      previous = s.hashes[i]!;
    }
    return;
  }
  let used = 0;
  for (let i = 0; i < M; i++) if (s.registers[i] !== 0) used++;
  if (used * 3 < DENSE_BYTES) {
    w.byte(2);
    w.blob(sparseBytes(s.registers, used));
  } else {
    w.byte(3);
    w.raw(denseBytes(s.registers));
  }
}

export function readSketch(r: ByteReader): DistinctSketch {
  const kind = r.byte();
  switch (kind) {
    case 0:
      return EMPTY_SKETCH;
    case 1: {
      const n = r.count(1);
      if (n === 0 || n > DISTINCT_SKETCH.exactLimit)
        throw new StoredFormatError('stored exact sketch size out of range');
      const hashes = new Array<number>(n);
      let previous = -1;
      for (let i = 0; i < n; i++) {
        const hash = (i === 0 ? 0 : previous) + r.uint();
        if (hash <= previous || hash >= HASH_LIMIT) throw new StoredFormatError('stored sketch hashes out of order');
        hashes[i] = previous = hash;
      }
      return exactSketch(hashes);
    }
    case 4:
      return readIndexes(r);
    case 5:
      return readBitmap(r);
    case 6:
      return readBitIndexes(r);
    case 2:
      return hllSketch(raiseBytes(raiseSparse, r.blob()));
    case 3:
      return hllSketch(raiseBytes(raiseDense, r.raw(DENSE_BYTES)));
    default:
      throw new StoredFormatError(`unknown stored sketch kind ${kind}`);
  }
}

/** Steps over what writeSketch wrote without building the sketch (its values are checked when read). */
export function skipSketch(r: ByteReader): void {
  const kind = r.byte();
  if (kind === 0) return;
  if (kind === 1 || kind === 4) {
    const n = r.count(1);
    if (n === 0 || n > DISTINCT_SKETCH.exactLimit) throw new StoredFormatError('stored exact sketch size out of range');
    for (let i = 0; i < n; i++) r.uint();
  } else if (kind === 5) {
    const visitors = dictionaryOf(r);
    if (!visitors) throw new StoredFormatError('stored visitor bitmap without a visitor dictionary');
    r.skip(Math.ceil(visitors.length / 8));
  } else if (kind === 6) {
    const visitors = dictionaryOf(r);
    if (!visitors) throw new StoredFormatError('stored visitor indexes without a visitor dictionary');
    r.skip(eliasFanoBytes(bitCount(r), visitors.length));
  } else if (kind === 2) r.blob();
  else if (kind === 3) r.skip(DENSE_BYTES);
  else throw new StoredFormatError(`unknown stored sketch kind ${kind}`);
}

/** Kind 4, 5 or 6, when every hash is in the dictionary (false, nothing written, when one is not). */
function writeIndexes(w: ByteWriter, hashes: readonly number[], visitors: HashPositions): boolean {
  const indexes = new Array<number>(hashes.length);
  let bytes = 0;
  for (let i = 0, previous = 0; i < hashes.length; i++) {
    const index = visitors.get(hashes[i]!);
    if (index === undefined) return false;
    indexes[i] = index;
    const gap = index - previous;
    bytes += gap < 0x80 ? 1 : gap < 0x4000 ? 2 : 3;
    previous = index;
  }
  const bitmap = Math.ceil(visitors.size / 8);
  const gaps = bytes + (indexes.length < 0x80 ? 1 : 2);
  const coded = w.visitorBits ? (indexes.length < 0x80 ? 1 : 2) + eliasFanoBytes(indexes.length, visitors.size) : gaps;
  if (coded < gaps && coded < bitmap) {
    w.byte(6);
    w.uint(indexes.length);
    w.raw(writeEliasFano(indexes, visitors.size));
    return true;
  }
  if (bitmap < gaps) {
    const bits = new Uint8Array(bitmap);
    for (const index of indexes) bits[index >>> 3]! |= 1 << (index & 7);
    w.byte(5);
    w.raw(bits);
    return true;
  }
  w.byte(4);
  w.uint(indexes.length);
  let previous = 0;
  for (let i = 0; i < indexes.length; i++) {
    w.uint(indexes[i]! - previous);
    previous = indexes[i]!;
  }
  return true;
}

/** The reader's visitor dictionary, decoded now if it was given as a function. */
function dictionaryOf(r: ByteReader): Float64Array | undefined {
  if (typeof r.visitors === 'function') r.visitors = r.visitors();
  return r.visitors;
}

function readBitmap(r: ByteReader): DistinctSketch {
  const visitors = dictionaryOf(r);
  if (!visitors) throw new StoredFormatError('stored visitor bitmap without a visitor dictionary');
  const bits = r.raw(Math.ceil(visitors.length / 8));
  const hashes: number[] = [];
  for (let b = 0; b < bits.length; b++) {
    let byte = bits[b]!;
    while (byte !== 0) {
      const bit = 31 - clz32(byte & -byte);
      const index = (b << 3) + bit;
      if (index >= visitors.length) throw new StoredFormatError('stored visitor bitmap past its dictionary');
      hashes.push(visitors[index]!);
      byte &= byte - 1;
    }
  }
  if (hashes.length === 0 || hashes.length > DISTINCT_SKETCH.exactLimit)
    throw new StoredFormatError('stored exact sketch size out of range');
  return exactSketch(hashes);
}

/** The count of a kind-6 set. */
function bitCount(r: ByteReader): number {
  const n = r.uint();
  if (n === 0 || n > DISTINCT_SKETCH.exactLimit) throw new StoredFormatError('stored exact sketch size out of range');
  return n;
}

function readBitIndexes(r: ByteReader): DistinctSketch {
  const visitors = dictionaryOf(r);
  if (!visitors) throw new StoredFormatError('stored visitor indexes without a visitor dictionary');
  const n = bitCount(r);
  const at = r.span(eliasFanoBytes(n, visitors.length));
  readEliasFano(r.source, at, n, visitors.length, INDEXES);
  const hashes = new Array<number>(n);
  for (let i = 0; i < n; i++) hashes[i] = visitors[INDEXES[i]!]!;
  return exactSketch(hashes);
}

function readIndexes(r: ByteReader): DistinctSketch {
  const visitors = dictionaryOf(r);
  if (!visitors) throw new StoredFormatError('stored visitor indexes without a visitor dictionary');
  const n = r.count(1);
  if (n === 0 || n > DISTINCT_SKETCH.exactLimit) throw new StoredFormatError('stored exact sketch size out of range');
  const hashes = new Array<number>(n);
  let previous = -1;
  for (let i = 0; i < n; i++) {
    const index = (i === 0 ? 0 : previous) + r.uint();
    if (index <= previous || index >= visitors.length)
      throw new StoredFormatError('stored visitor indexes out of order or range');
    hashes[i] = visitors[index]!;
    previous = index;
  }
  return exactSketch(hashes);
}

function raiseBytes(raise: (registers: Uint8Array, bytes: Uint8Array) => Uint8Array, bytes: Uint8Array): Uint8Array {
  try {
    return raise(new Uint8Array(M), bytes);
  } catch (err) {
    throw new StoredFormatError(err instanceof Error ? err.message : String(err));
  }
}
