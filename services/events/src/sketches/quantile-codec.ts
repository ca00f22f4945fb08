import { keyOf, QUANTILE_SKETCH } from './quantile-mapping';
import { EMPTY_QUANTILES, type QuantileSketch } from './quantile-model';
import type { QuantileMerger } from './quantile-merger';

/*
 * Stored form (docs/sketch-format.md, "Quantile sketch"): a version byte, then unsigned LEB128
 * varints: zeros, the number of non-empty bins, min and max (only when count > 0), then per bin
 * the gap to the previous key (the first key itself; a gap of 0 means the next key) and its count.
 * One sketch has exactly one stored form.
 */

const VERSION = 2;
/**
 * Version 1 was written with two layouts: first one of logarithmic bins only, without min and
 * max, then the layout above (so cells hold it under 1 too). The layout above is read under either
 * byte; the first one cannot be mapped onto these bins (its bins below 128 hold several integers
 * and it has no exact extremes) and is refused by name. The two never read alike: past zeros and
 * the bin count, the first layout has two varints a bin, the one above two more; the empty
 * sketch, `01 00 00`, is the same in both.
 */
const VERSION_1 = 1;

/** Bytes this build cannot read: an unknown version (a newer writer) or damaged bytes. */
export class QuantileFormatError extends Error {}

export function encodeQuantiles(s: QuantileSketch): Uint8Array {
  const out: number[] = [VERSION];
  writeVarint(out, s.zeros);
  writeVarint(out, s.keys.length);
  if (s.count > 0) {
    writeVarint(out, s.min);
    writeVarint(out, s.max);
  }
  for (let i = 0, previous = -1; i < s.keys.length; previous = s.keys[i++]!) {
    writeVarint(out, s.keys[i]! - previous - 1);
    writeVarint(out, s.counts[i]!);
  }
  return Uint8Array.from(out);
}

export function decodeQuantiles(bytes: Uint8Array): QuantileSketch {
  const h = readStored(bytes, checkedLength(bytes));
  if (h.count === 0) return EMPTY_QUANTILES;
  const { zeros, min, max, count, used } = h;
  return { count, zeros, min, max, keys: KEYS.slice(0, used), counts: COUNTS.slice(0, used) };
}

/**
 * The stored sketch in `bytes[0, length)` added into `merger` without a decoded sketch of its own
 * (the report's hot path: thousands of small stored parts per report). Checked like decodeQuantiles;
 * a damaged sketch throws before anything is added.
 */
export function addStoredQuantiles(merger: QuantileMerger, bytes: Uint8Array, length: number): void {
  if (!(bytes instanceof Uint8Array) || !(length >= 1 && length <= bytes.length)) {
    throw new QuantileFormatError('a stored quantile sketch is a non-empty byte array');
  }
  const h = readStored(bytes, length);
  merger.addBins(h.count, h.zeros, h.min, h.max, KEYS, COUNTS, h.used);
}

function checkedLength(bytes: Uint8Array): number {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new QuantileFormatError('a stored quantile sketch is a non-empty byte array');
  }
  return bytes.length;
}

/** The bins of the sketch being read (reused: a decoded sketch copies what it keeps). */
const KEYS = new Uint16Array(QUANTILE_SKETCH.maxKey + 1);
const COUNTS = new Float64Array(QUANTILE_SKETCH.maxKey + 1);

interface StoredHeader {
  zeros: number;
  min: number;
  max: number;
  count: number;
  used: number;
}

/** Reads and checks one stored sketch; its bins go to KEYS/COUNTS[0, used). */
function readStored(bytes: Uint8Array, length: number): StoredHeader {
  if (bytes[0] === VERSION) return readLayout(bytes, length);
  if (bytes[0] !== VERSION_1) {
    throw new QuantileFormatError(
      `unknown quantile-sketch format version ${bytes[0]} (this build reads versions 1 and ${VERSION}; written by a newer build?)`,
    );
  }
  try {
    return readLayout(bytes, length);
  } catch (error) {
    if (isFirstLayout(bytes, length)) {
      throw new QuantileFormatError(
        'a quantile sketch in the first layout of version 1 (logarithmic bins only, no min and max): rebuild the rollups of its days',
      );
    }
    throw error;
  }
}

/** Whether `bytes` read as the first layout of version 1: zeros, bins, then per bin a gap of at least 1 and a count. */
function isFirstLayout(bytes: Uint8Array, length: number): boolean {
  const reader = { bytes, at: 1, end: length };
  try {
    readVarint(reader);
    const bins = readVarint(reader);
    for (let i = 0; i < bins; i++) if (readVarint(reader) === 0 || readVarint(reader) === 0) return false;
  } catch {
    return false;
  }
  return reader.at === reader.end;
}

function readLayout(bytes: Uint8Array, length: number): StoredHeader {
  const reader = { bytes, at: 1, end: length };
  const zeros = readVarint(reader);
  const used = readVarint(reader);
  if (used > QUANTILE_SKETCH.maxKey + 1) throw new QuantileFormatError(`stored quantile sketch has ${used} bins`);
  if (zeros === 0 && used === 0) return finish(reader, { zeros, min: 0, max: 0, count: 0, used });
  const min = readVarint(reader);
  const max = readVarint(reader);
  let count = zeros;
  for (let i = 0, key = -1; i < used; i++) {
    key += readVarint(reader) + 1;
    const c = readVarint(reader);
    if (key > QUANTILE_SKETCH.maxKey || c === 0) throw new QuantileFormatError('stored quantile bin out of range');
    KEYS[i] = key;
    COUNTS[i] = c;
    count += c;
  }
  if (!Number.isSafeInteger(count)) throw new QuantileFormatError('stored quantile sketch counts past 2^53');
  checkExtremes(zeros, used, min, max);
  return finish(reader, { zeros, min, max, count, used });
}

/** min and max must lie in the first and last non-empty bins (or be 0 with the zeros). */
function checkExtremes(zeros: number, used: number, min: number, max: number): void {
  const first = zeros > 0 ? 0 : KEYS[0]!;
  const last = used > 0 ? KEYS[used - 1]! : 0;
  const ok =
    min <= max &&
    (zeros > 0 ? min === 0 : min >= 1 && keyOf(min) === first) &&
    (used === 0 ? max === 0 : max >= 1 && max <= QUANTILE_SKETCH.largestValue && keyOf(max) === last);
  if (!ok) throw new QuantileFormatError('stored quantile sketch min/max do not match its bins');
}

function finish(reader: Reader, s: StoredHeader): StoredHeader {
  if (reader.at !== reader.end) throw new QuantileFormatError('stored quantile sketch has trailing bytes');
  return s;
}

/** Unsigned LEB128 of a safe integer, by division: values go past 32 bits. */
function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** At most 8 bytes (2^56), no redundant trailing zero byte, and the value a safe integer. */
interface Reader {
  bytes: Uint8Array;
  at: number;
  /** Where the stored sketch ends (a reused buffer may hold more). */
  end: number;
}

function readVarint(reader: Reader): number {
  let value = 0;
  let scale = 1;
  for (let n = 0; n < 8; n++) {
    if (reader.at >= reader.end) throw new QuantileFormatError('stored quantile sketch is truncated');
    const byte = reader.bytes[reader.at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (byte === 0 && n > 0) throw new QuantileFormatError('stored quantile sketch has a padded varint');
      if (!Number.isSafeInteger(value)) throw new QuantileFormatError('stored quantile number past 2^53');
      return value;
    }
    scale *= 0x80;
  }
  throw new QuantileFormatError('stored quantile varint longer than 8 bytes');
}
