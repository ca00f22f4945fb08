import {
  countryOfCode,
  COUNTRY_CODES,
  ensureCapacity,
  SLOTS,
  VISITOR_SAMPLE,
  type VisitorSample,
} from './visitor-sample-model';
import { readVarint, SampleFormatError, writeVarint, type Reader } from './visitor-sample-varint';

/*
 * Stored form v1 (docs/sketch-format.md, "Visitor sample"): a version byte, then unsigned LEB128
 * varints: sampled (0/1), visitors n, events, the number T of countries in the sample's table,
 * the table (two ASCII capitals each, ascending), then per visitor, hashes ascending: the hash
 * (the first) or its gap to the previous one (at least 1), head = (count - 1) * 8 + tag (tag 0..4
 * kept countries, 5: four kept and more), and the kept countries as ascending table indexes of
 * 0 (T <= 1: implied), 1 (T <= 256) or 2 bytes (big-endian). One sample, one stored form.
 *
 * Stored form v2: v1 without the hashes, for a sample whose visitors are an exact set stored next
 * to it (a rollup entry's visitor sketch, which holds the same hashes while both are exact): the
 * reader is given those hashes. The hashes are most of a v1 sample's bytes.
 */

const VERSION = 1;
const VERSION_KNOWN_HASHES = 2;
const K = VISITOR_SAMPLE.k;
const MAX_COUNT = VISITOR_SAMPLE.maxCount;
const HASH_SPAN = 2 ** 52;
const MORE_TAG = SLOTS + 1;

/** Per code: 1 + its index in the table being written or read (0: not in the table). */
const TABLE_INDEX = new Uint16Array(COUNTRY_CODES + 1);
/** The table being read: code of each index, and whether a visitor used it. */
const TABLE = new Uint16Array(COUNTRY_CODES);
const TABLE_USED = new Uint8Array(COUNTRY_CODES);
/** Room for the largest stored form (21 bytes a visitor at most, the table, the header). */
const OUT = new Uint8Array(24 + 2 * COUNTRY_CODES + 21 * K);

/** The stored form v1 of `s`. */
export function encodeSample(s: VisitorSample): Uint8Array {
  return encode(s, false);
}

/** The stored form v2 of `s`: its hashes left out (the caller stores them and gives them back to readSample). */
export function encodeSampleWithoutHashes(s: VisitorSample): Uint8Array {
  if (s.sampled) throw new RangeError('only an exact visitor sample is stored without its hashes');
  return encode(s, true);
}

function encode(s: VisitorSample, knownHashes: boolean): Uint8Array {
  const n = s.size;
  if (!(n <= K)) throw new RangeError(`a visitor sample holds at most ${K} visitors, got ${n}`);
  const { hashes, counts, countries, more } = s;
  // the codes used, ascending (found as they come, then sorted: not a look at all 676 per sample)
  const codes: number[] = [];
  for (let i = 0; i < n * SLOTS; i++) {
    const code = countries[i]!;
    if (code !== 0 && TABLE_INDEX[code] === 0) {
      TABLE_INDEX[code] = 1;
      codes.push(code);
    }
  }
  codes.sort((a, b) => a - b);
  const tableSize = codes.length;
  codes.forEach((code, index) => (TABLE_INDEX[code] = index + 1));
  const out = OUT;
  let o = 0;
  out[o++] = knownHashes ? VERSION_KNOWN_HASHES : VERSION;
  o = writeVarint(out, o, s.sampled ? 1 : 0);
  o = writeVarint(out, o, n);
  o = writeVarint(out, o, s.events);
  o = writeVarint(out, o, tableSize);
  for (const code of codes) {
    const name = countryOfCode(code);
    out[o++] = name.charCodeAt(0);
    out[o++] = name.charCodeAt(1);
  }
  const width = tableSize <= 1 ? 0 : tableSize <= 256 ? 1 : 2;
  for (let i = 0, previous = 0; i < n; i++) {
    const hash = hashes[i]!;
    if (!knownHashes) o = writeVarint(out, o, i === 0 ? hash : hash - previous);
    previous = hash;
    const d = i * SLOTS;
    let kept = 0;
    while (kept < SLOTS && countries[d + kept] !== 0) kept++;
    o = writeVarint(out, o, (counts[i]! - 1) * 8 + (more[i] ? MORE_TAG : kept));
    for (let k = 0; k < kept; k++) {
      const index = TABLE_INDEX[countries[d + k]!]! - 1;
      if (width === 2) out[o++] = index >>> 8;
      if (width >= 1) out[o++] = index & 0xff;
    }
  }
  for (const code of codes) TABLE_INDEX[code] = 0;
  return out.slice(0, o);
}

export function decodeSample(bytes: Uint8Array, knownHashes?: ArrayLike<number>): VisitorSample {
  return readSample(bytes, null, knownHashes);
}

/** Whether stored bytes are of the form that leaves the hashes out (v2): its reader needs them. */
export function needsKnownHashes(bytes: Uint8Array): boolean {
  return bytes[0] === VERSION_KNOWN_HASHES;
}

/**
 * Reads `bytes` into `into` (reusing its arrays, growing them if needed) or, when null, into a
 * new sample of exactly the stored size. Everything is checked; a damaged value throws
 * SampleFormatError. Work and memory are bounded by the byte length and K, whatever it declares.
 * `knownHashes`: the ascending hashes of a v2 value (a v2 value without them, or with another
 * number of them than it declares, is damage).
 */
export function readSample(
  bytes: Uint8Array,
  into: VisitorSample | null,
  knownHashes?: ArrayLike<number>,
): VisitorSample {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new SampleFormatError('a stored visitor sample is a non-empty byte array');
  }
  if (bytes[0] !== VERSION && bytes[0] !== VERSION_KNOWN_HASHES) {
    throw new SampleFormatError(
      `unknown visitor-sample format version ${bytes[0]} (this build reads versions ${VERSION} and ${VERSION_KNOWN_HASHES}; written by a newer build?)`,
    );
  }
  const known = bytes[0] === VERSION_KNOWN_HASHES;
  if (known && !knownHashes) throw new SampleFormatError('a visitor sample without its hashes was read without them');
  const r: Reader = { bytes, at: 1 };
  const sampled = readVarint(r);
  const n = readVarint(r);
  const events = readVarint(r);
  const tableSize = readVarint(r);
  if (sampled > 1 || n > K || (sampled === 1 && n !== K)) throw new SampleFormatError('bad visitor-sample header');
  if (known && (sampled !== 0 || knownHashes!.length !== n))
    throw new SampleFormatError("a visitor sample without its hashes does not match its entry's visitors");
  if (tableSize > COUNTRY_CODES || bytes.length - r.at < 2 * tableSize + (known ? 1 : 2) * n) {
    throw new SampleFormatError('visitor sample declares more than its bytes hold');
  }
  for (let t = 0, previous = 0; t < tableSize; t++) {
    const first = bytes[r.at++]! - 65;
    const second = bytes[r.at++]! - 65;
    const code = first * 26 + second + 1;
    if (first < 0 || first > 25 || second < 0 || second > 25 || code <= previous) {
      throw new SampleFormatError('visitor-sample country table out of order or not capital letters');
    }
    TABLE[t] = previous = code;
    TABLE_USED[t] = 0;
  }
  const s: VisitorSample = into ?? emptyOfCapacity(n);
  s.size = 0; // nothing to keep when it grows, and no half-read visitors if reading throws
  ensureCapacity(s, n);
  const { hashes, counts, countries, more } = s;
  const width = tableSize <= 1 ? 0 : tableSize <= 256 ? 1 : 2;
  let hash = -1;
  let sum = 0;
  let saturated = false;
  for (let i = 0; i < n; i++) {
    if (known) {
      const next = knownHashes![i]!;
      hash = next > hash ? next : HASH_SPAN;
    } else {
      const step = readVarint(r);
      hash = i === 0 ? step : step === 0 ? HASH_SPAN : hash + step;
    }
    if (hash >= HASH_SPAN) throw new SampleFormatError('visitor-sample hashes out of order or range');
    const head = readVarint(r);
    const tag = head % 8;
    const count = (head - tag) / 8 + 1;
    const kept = tag === MORE_TAG ? SLOTS : tag;
    if (tag > MORE_TAG || count > MAX_COUNT || kept > tableSize) {
      throw new SampleFormatError('visitor-sample count or countries out of range');
    }
    hashes[i] = hash;
    counts[i] = count;
    more[i] = tag === MORE_TAG ? 1 : 0;
    sum += count;
    if (count === MAX_COUNT) saturated = true;
    const d = i * SLOTS;
    for (let k = 0, previous = -1; k < SLOTS; k++) {
      if (k >= kept) {
        countries[d + k] = 0;
        continue;
      }
      if (r.at + width > bytes.length) throw new SampleFormatError('stored visitor sample is truncated');
      const index = width === 0 ? 0 : width === 1 ? bytes[r.at++]! : (bytes[r.at++]! << 8) | bytes[r.at++]!;
      if (index <= previous || index >= tableSize)
        throw new SampleFormatError('visitor-sample country index out of range');
      previous = index;
      TABLE_USED[index] = 1;
      countries[d + k] = TABLE[index]!;
    }
  }
  if (r.at !== bytes.length) throw new SampleFormatError('stored visitor sample has trailing bytes');
  for (let t = 0; t < tableSize; t++)
    if (!TABLE_USED[t]) throw new SampleFormatError('visitor-sample table entry unused');
  if (!Number.isSafeInteger(events) || sum > events || (sampled === 0 && !saturated && sum !== events)) {
    throw new SampleFormatError("visitor-sample events do not match its visitors' counts");
  }
  s.size = n;
  s.sampled = sampled === 1;
  s.events = events;
  return s;
}

function emptyOfCapacity(n: number): VisitorSample {
  return {
    size: 0,
    sampled: false,
    events: 0,
    hashes: new Float64Array(n),
    counts: new Uint32Array(n),
    countries: new Uint16Array(n * SLOTS),
    more: new Uint8Array(n),
  };
}
