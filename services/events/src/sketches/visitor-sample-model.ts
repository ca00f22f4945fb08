/**
 * K = 4,096 (chosen by measurement, docs/benchmarks.md "Frequency and on-target reach accuracy": a
 * full sample stores in about 33 KB, under the 40 KB a cell may spend on it, and K = 2,048 would
 * double the variance for a saving of 16 KB); up to 4 countries kept per visitor; a visitor's
 * event count saturates at 2^32 - 1.
 */
export const VISITOR_SAMPLE: {
  k: 4096;
  countriesPerVisitor: 4;
  maxCount: 4294967295;
} = Object.freeze({ k: 4096, countriesPerVisitor: 4, maxCount: 0xffffffff });

/**
 * The visitors of a cell, each with its event count and the countries its events came from. While
 * the cell has at most K distinct visitors, all of them (`sampled` false); beyond, the K visitors
 * with the smallest hashes (`sampled` true), each with its exact count and countries.
 *
 * Visitor i (0 <= i < size, hashes ascending) has hashes[i], counts[i] (1..maxCount) and the
 * country codes countries[4i .. 4i+3]: ascending, 0 for an unused slot, at most 4; more[i] is 1
 * when its events came from more countries than the 4 kept, which are the 4 smallest codes (so
 * the kept set is a function of the visitor's whole set, whatever the merge order). The arrays may
 * be longer than size (room to grow). `events` counts every event of every visitor, kept or not.
 *
 * Ownership: only addVisitor and mergeSampleInto write, and only into a target the caller owns
 * (made by emptySample, decodeSample or mergeSamples, never shared); everything else only reads.
 */
export interface VisitorSample {
  size: number;
  sampled: boolean;
  events: number;
  hashes: Float64Array;
  counts: Uint32Array;
  countries: Uint16Array;
  more: Uint8Array;
}

export const SLOTS = VISITOR_SAMPLE.countriesPerVisitor;
/** Country codes 1..676: 'AA' is 1, 'AB' 2, ..., 'ZZ' 676, so codes sort as the letters do. */
export const COUNTRY_CODES = 26 * 26;

const HASH_SPAN = 2 ** 52;
const NO_HASHES = new Float64Array(0);
const NO_COUNTS = new Uint32Array(0);
const NO_COUNTRIES = new Uint16Array(0);
const NO_FLAGS = new Uint8Array(0);

/** A new sample the caller owns; its (shared, empty) arrays are replaced before the first write. */
export function emptySample(): VisitorSample {
  return {
    size: 0,
    sampled: false,
    events: 0,
    hashes: NO_HASHES,
    counts: NO_COUNTS,
    countries: NO_COUNTRIES,
    more: NO_FLAGS,
  };
}

/**
 * Room for `needed` visitors: a sample's first arrays hold exactly that many (most samples are
 * one hour-pipeline row's single visitor, built and merged away in the builder's hot loop), then
 * they double (at least 16), up to K.
 */
export function ensureCapacity(s: VisitorSample, needed: number): void {
  const capacity = s.hashes.length;
  if (needed <= capacity) return;
  const grown = capacity === 0 ? needed : Math.max(needed, Math.min(VISITOR_SAMPLE.k, Math.max(16, 2 * capacity)));
  resize(s, grown);
}

/** Samples of at most this many visitors take their arrays from a shared slab. */
const POOLED = 16;
const SLAB_BYTES = 1 << 16;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabUsed = 0;

/**
 * The four arrays of a sample with room for `capacity` visitors. A small one's are views of a
 * shared slab (never reused, so zeroed like new arrays): four arrays of their own made a
 * one-visitor sample hold about 900 bytes of heap, four views about 490, and were slower to make
 * (an ArrayBuffer per sample, slower still). A builder's unit holds a sample per page entry, most
 * of one visitor; a slab lives as long as any of its samples' arrays, and the builder drops an
 * owner's cells together.
 */
function arraysFor(capacity: number): [Float64Array, Uint32Array, Uint16Array, Uint8Array] {
  if (capacity > POOLED)
    return [
      new Float64Array(capacity),
      new Uint32Array(capacity),
      new Uint16Array(capacity * SLOTS),
      new Uint8Array(capacity),
    ];
  // hashes first, at a multiple of 8: 21 bytes a visitor, rounded up to 8
  const bytes = (capacity * (8 + 4 + 2 * SLOTS + 1) + 7) & ~7;
  if (slabUsed + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const at = slabUsed;
  slabUsed += bytes;
  return [
    new Float64Array(slab, at, capacity),
    new Uint32Array(slab, at + 8 * capacity, capacity),
    new Uint16Array(slab, at + 12 * capacity, capacity * SLOTS),
    new Uint8Array(slab, at + (12 + 2 * SLOTS) * capacity, capacity),
  ];
}

function resize(s: VisitorSample, capacity: number): void {
  const n = s.size;
  const [hashes, counts, countries, more] = arraysFor(capacity);
  // native copies (a view each, only when growing)
  hashes.set(s.hashes.subarray(0, n));
  counts.set(s.counts.subarray(0, n));
  countries.set(s.countries.subarray(0, n * SLOTS));
  more.set(s.more.subarray(0, n));
  s.hashes = hashes;
  s.counts = counts;
  s.countries = countries;
  s.more = more;
}

/** A copy the caller owns, with room for `capacity` visitors (at least its size). */
export function cloneSample(s: VisitorSample, capacity: number): VisitorSample {
  const copy = emptySample();
  copy.size = s.size;
  copy.sampled = s.sampled;
  copy.events = s.events;
  copy.hashes = s.hashes;
  copy.counts = s.counts;
  copy.countries = s.countries;
  copy.more = s.more;
  resize(copy, Math.max(capacity, s.size));
  return copy;
}

export function checkHash(hash: number): void {
  if (!(typeof hash === 'number' && hash >= 0 && hash < HASH_SPAN && hash % 1 === 0)) {
    throw new RangeError(`a visitor hash is an integer in [0, 2^52), got ${String(hash)}`);
  }
}

export function checkEvents(events: number): void {
  if (!(typeof events === 'number' && Number.isSafeInteger(events) && events >= 1)) {
    throw new RangeError(`a visitor's events are a positive integer, got ${String(events)}`);
  }
}

/** Events past 2^53 would stop counting exactly: refuse them rather than drift. */
export function checkedTotal(total: number): number {
  if (!Number.isSafeInteger(total)) throw new RangeError('a visitor sample counts at most 2^53 - 1 events');
  return total;
}

/** ISO 3166-1 alpha-2 in upper case ('FR') to 1..676; anything else is refused. */
export function countryCode(country: string): number {
  if (typeof country !== 'string' || country.length !== 2) {
    throw new RangeError(`a country is an ISO 3166-1 alpha-2 code in upper case, got ${JSON.stringify(country)}`);
  }
  const first = country.charCodeAt(0) - 65;
  const second = country.charCodeAt(1) - 65;
  if (!(first >= 0 && first < 26 && second >= 0 && second < 26)) {
    throw new RangeError(`a country is an ISO 3166-1 alpha-2 code in upper case, got ${JSON.stringify(country)}`);
  }
  return first * 26 + second + 1;
}

export function countryOfCode(code: number): string {
  return String.fromCharCode(65 + Math.floor((code - 1) / 26), 65 + ((code - 1) % 26));
}
