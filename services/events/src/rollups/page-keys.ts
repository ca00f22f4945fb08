import {
  readStringTable,
  StoredFormatError,
  writeStringTable,
  type ByteReader,
  type ByteWriter,
} from '../metrics/byte-codec';

/*
 * A page's keys (column `k`) from page format 6 on: the dimension count with 0x40 added (the
 * layout before it starts with the count itself, at most 16), a byte whose bit k says dimension
 * k's indexes are stored as differences to the previous entry's, the names and the key strings
 * once each (sorted, front-coded), the entry count, then the entries' names as runs (entries are
 * sorted by name: a page holds a run per name, where the layout before stored an index per
 * entry), each entry's key indexes, and the entries' device masks four bits each. A dimension
 * whose sorted entries climb in small steps (a page's urls under one content id) is stored as
 * zigzag differences when that is shorter, which the writer finds out per page and dimension.
 */

/** The first byte of this layout: the dimension count plus this. */
export const KEYS_LAYOUT = 0x40;

/** Stored form of a page's keys: `nameOf[i]`, `keyOf[i * dims + k]`, `mask[i]` of its n entries. */
export function writeKeys(
  w: ByteWriter,
  dims: number,
  names: readonly string[],
  strings: readonly string[],
  n: number,
  nameOf: ArrayLike<number>,
  keyOf: ArrayLike<number>,
  mask: ArrayLike<number>,
): void {
  let deltas = 0;
  for (let k = 0; k < dims; k++) {
    let plain = 0;
    let delta = 0;
    for (let i = 0, previous = 0; i < n; i++) {
      const key = keyOf[i * dims + k]!;
      plain += varintBytes(key);
      delta += varintBytes(zigzag(key - previous));
      previous = key;
    }
    if (delta < plain) deltas |= 1 << k;
  }
  w.byte(KEYS_LAYOUT + dims);
  w.byte(deltas);
  writeStringTable(w, names);
  writeStringTable(w, strings);
  w.uint(n);
  let runs = 0;
  for (let i = 0; i < n; i++) if (i === 0 || nameOf[i] !== nameOf[i - 1]) runs++;
  w.uint(runs);
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && nameOf[j] === nameOf[i]) j++;
    w.uint(nameOf[i]!);
    w.uint(j - i);
    i = j;
  }
  const previous = new Array<number>(dims).fill(0);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < dims; k++) {
      const key = keyOf[i * dims + k]!;
      w.uint(deltas & (1 << k) ? zigzag(key - previous[k]!) : key);
      previous[k] = key;
    }
  for (let i = 0; i < n; i += 2) w.byte(mask[i]! | ((i + 1 < n ? mask[i + 1]! : 0) << 4));
}

/** A page's keys read back (either layout); damaged bytes throw StoredFormatError. */
export interface PageKeys {
  dims: number;
  names: string[];
  strings: string[];
  count: number;
  nameOf: Uint32Array;
  keyOf: Uint32Array;
  mask: Uint8Array;
}

export function readKeys(r: ByteReader): PageKeys {
  const first = r.uint();
  return first >= KEYS_LAYOUT ? readRuns(r, first - KEYS_LAYOUT) : readEntries(r, first);
}

/** The layout of formats 3 to 5: per entry its name's index, its key indexes and its mask byte. */
function readEntries(r: ByteReader, dims: number): PageKeys {
  if (dims > 16) throw new StoredFormatError('stored page has too many dimensions');
  const names = readStringTable(r);
  const strings = readStringTable(r);
  const count = r.count(2 + dims);
  const nameOf = new Uint32Array(count);
  const keyOf = new Uint32Array(count * dims);
  const mask = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const name = r.uint();
    if (name >= names.length) throw new StoredFormatError('stored entry names an unknown name');
    nameOf[i] = name;
    for (let k = 0; k < dims; k++) {
      const key = r.uint();
      if (key >= strings.length) throw new StoredFormatError('stored entry names an unknown key');
      keyOf[i * dims + k] = key;
    }
    const m = r.byte();
    if (m === 0 || m > 7) throw new StoredFormatError('stored entry has no devices');
    mask[i] = m;
  }
  return { dims, names, strings, count, nameOf, keyOf, mask };
}

function readRuns(r: ByteReader, dims: number): PageKeys {
  if (dims > 16) throw new StoredFormatError('stored page has too many dimensions');
  const deltas = r.byte();
  if (deltas >> dims !== 0) throw new StoredFormatError('stored page keys are damaged');
  const names = readStringTable(r);
  const strings = readStringTable(r);
  // an entry takes at least its key indexes and half a byte of mask
  const count = r.count(dims + 0.5);
  const nameOf = new Uint32Array(count);
  const keyOf = new Uint32Array(count * dims);
  const mask = new Uint8Array(count);
  const runs = r.count(2);
  let at = 0;
  for (let run = 0; run < runs; run++) {
    const name = r.uint();
    const length = r.uint();
    if (name >= names.length) throw new StoredFormatError('stored entry names an unknown name');
    if (length === 0 || length > count - at) throw new StoredFormatError('stored page keys are damaged');
    nameOf.fill(name, at, at + length);
    at += length;
  }
  if (at !== count) throw new StoredFormatError('stored page keys are damaged');
  const known = strings.length;
  if (deltas === 0) {
    for (let i = 0; i < keyOf.length; i++) {
      const key = r.uint();
      if (key >= known) throw new StoredFormatError('stored entry names an unknown key');
      keyOf[i] = key;
    }
  } else {
    for (let i = 0, at = 0; i < count; i++)
      for (let k = 0; k < dims; k++, at++) {
        const v = r.uint();
        // a difference to the entry before (zigzag: even up, odd down), else the index itself
        const key = deltas & (1 << k) ? (i === 0 ? 0 : keyOf[at - dims]!) + (v % 2 === 0 ? v / 2 : -(v + 1) / 2) : v;
        if (key < 0 || key >= known) throw new StoredFormatError('stored entry names an unknown key');
        keyOf[at] = key;
      }
  }
  for (let i = 0; i < count; i += 2) {
    const b = r.byte();
    const low = b & 0x0f;
    const high = b >> 4;
    if (low === 0 || low > 7 || high > 7 || i + 1 < count !== (high !== 0))
      throw new StoredFormatError('stored entry has no devices');
    mask[i] = low;
    if (i + 1 < count) mask[i + 1] = high;
  }
  return { dims, names, strings, count, nameOf, keyOf, mask };
}

function zigzag(v: number): number {
  return v >= 0 ? 2 * v : -2 * v - 1;
}

function varintBytes(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : 4;
}
