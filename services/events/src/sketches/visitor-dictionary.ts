import { ByteReader, ByteWriter, StoredFormatError, type HashPositions } from '../metrics/byte-codec';
import { eliasFanoBytes, readEliasFano, writeEliasFano } from './elias-fano';
import { PositionIndex } from './position-index';

/*
 * The visitors of one owner in one rollup unit, sorted ascending: stored once (on the owner's
 * first totals page, column `v`), and every exact visitor set of the owner's pages in that unit,
 * in every family, stored as indexes into it (sketch-binary.ts kind 4). Each family holds every
 * event once, so without it each visitor's hash is stored again per family (four times per unit);
 * an index gap within a set of k of n visitors takes one or two bytes where a hash gap takes
 * five to eight.
 */

/** The largest visitor hash plus one: hashes are the first 52 bits of an HMAC. */
const HASH_LIMIT = 2 ** 52;

/**
 * The most visitors a dictionary holds: at up to 8 bytes each it stays far inside a stored
 * page's 16 MB. An owner's unit with more visitors has none, its sets keeping their hashes.
 */
export const MAX_DICTIONARY_VISITORS = 1_000_000;

/** A dictionary being written: its sorted hashes and where each is. */
export interface VisitorIndex {
  readonly hashes: Float64Array;
  readonly indexOf: HashPositions;
}

/**
 * The dictionary of these hash lists (each sorted or not, repeats allowed): their sorted union,
 * or undefined when it is empty or larger than MAX_DICTIONARY_VISITORS.
 */
export function visitorIndexOf(lists: ReadonlyArray<ArrayLike<number>>): VisitorIndex | undefined {
  let total = 0;
  for (const list of lists) total += list.length;
  if (total === 0) return undefined;
  const all = new Float64Array(total);
  let at = 0;
  for (const list of lists) for (let i = 0; i < list.length; i++) all[at++] = list[i]!;
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
  if (n > MAX_DICTIONARY_VISITORS) return undefined;
  const hashes = all.slice(0, n);
  // by open addressing, not a Map: one boxed number per visitor made and looked up (the builder's
  // largest cost after the garbage collector's)
  const indexOf = new PositionIndex(n);
  for (let i = 0; i < n; i++) indexOf.add(hashes[i]!);
  return { hashes, indexOf };
}

/**
 * Stored form (page format 6, `bits`): a zero byte (no stored dictionary is empty, so no count of
 * the older form starts with one), the count, then the hashes in bits (elias-fano.ts: about 5.2
 * bytes a hash where a varint gap takes 6). The older form (page format 5, still read): the count,
 * then the first hash and each next one's difference to the one before (varints).
 */
export function writeVisitorDictionary(hashes: Float64Array, bits = true): Uint8Array {
  if (bits && hashes.length > 0) {
    const w = new ByteWriter(16);
    w.byte(0);
    w.uint(hashes.length);
    const head = w.bytes();
    const body = writeEliasFano(hashes, HASH_LIMIT);
    const out = new Uint8Array(head.length + body.length);
    out.set(head);
    out.set(body, head.length);
    return out;
  }
  const w = new ByteWriter(16 + hashes.length * 6);
  w.uint(hashes.length);
  let previous = 0;
  for (let i = 0; i < hashes.length; i++) {
    w.uint(hashes[i]! - previous);
    previous = hashes[i]!;
  }
  return w.bytes();
}

/**
 * Reads what writeVisitorDictionary wrote; damaged bytes (out of order, out of range, cut short)
 * throw StoredFormatError. A report decodes the dictionary of every unit whose visitor sets it
 * reads from the store (thousands to hundreds of thousands of hashes): a loop of its own over the
 * bytes, about four times as fast as a ByteReader's varints.
 */
export function readVisitorDictionary(bytes: Uint8Array): Float64Array {
  if (bytes.length > 1 && bytes[0] === 0) return readBitDictionary(bytes);
  const r = new ByteReader(bytes);
  const n = r.count(1);
  if (n > MAX_DICTIONARY_VISITORS) throw new StoredFormatError('stored visitor dictionary too large');
  const hashes = new Float64Array(n);
  const end = bytes.length;
  let at = r.offset;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    if (at >= end) throw new StoredFormatError('stored visitor dictionary ends early');
    let b = bytes[at++]!;
    let gap = b & 0x7f;
    let scale = 0x80;
    while (b >= 0x80) {
      if (at >= end || scale > MAX_SCALE) throw new StoredFormatError('stored visitor dictionary ends early');
      b = bytes[at++]!;
      gap += (b & 0x7f) * scale;
      scale *= 0x80;
    }
    if (i > 0 && gap === 0) throw new StoredFormatError('stored visitor dictionary out of order');
    const hash = previous + gap;
    if (hash >= HASH_LIMIT) throw new StoredFormatError('stored visitor hash out of range');
    hashes[i] = previous = hash;
  }
  if (at !== end) throw new StoredFormatError('stored visitor dictionary has trailing bytes');
  return hashes;
}

function readBitDictionary(bytes: Uint8Array): Float64Array {
  const r = new ByteReader(bytes, 1);
  const n = r.uint();
  if (n === 0 || n > MAX_DICTIONARY_VISITORS)
    throw new StoredFormatError('stored visitor dictionary size out of range');
  if (bytes.length - r.offset !== eliasFanoBytes(n, HASH_LIMIT))
    throw new StoredFormatError('stored visitor dictionary has the wrong length');
  const hashes = new Float64Array(n);
  readEliasFano(bytes, r.offset, n, HASH_LIMIT, hashes);
  return hashes;
}

/** The scale of a varint's eighth byte: no gap below 2^52 needs a ninth. */
const MAX_SCALE = 0x80 ** 7;
