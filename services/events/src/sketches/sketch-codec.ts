import { DISTINCT_SKETCH, EMPTY_SKETCH, exactSketch, hllSketch, MAX_RHO, type DistinctSketch } from './sketch-model';

/*
 * Stored form v1 (docs/sketch-format.md): 0 for the empty sketch, else a prefix naming kind and
 * version followed by base64url bytes. `e1:` exact, 7-byte big-endian hashes ascending; `s1:`
 * sparse registers, 3 bytes each (index << 6 | value) ascending by index, non-zero only; `d1:`
 * dense registers, 6 bits each, four to three bytes. Registers are written in whichever of s1/d1
 * is shorter, so one set of registers always has one stored form.
 */

/** A stored sketch this build cannot read: an unknown prefix (a newer writer) or damaged bytes. */
export class SketchFormatError extends Error {}

const M = DISTINCT_SKETCH.registers;
const DENSE_BYTES = (M * 6) / 8;
const HASH_BYTES = 7;
const SPARSE_BYTES = 3;
const HIGH_SPAN = 2 ** 32;
const MAX_HIGH = 2 ** 20;

/** Stored form (JSON-safe, versioned): 0 for empty, else a string with a kind+version prefix. */
export function encodeSketch(s: DistinctSketch): 0 | string {
  if (s.kind === 'exact') return s.hashes.length === 0 ? 0 : 'e1:' + encodeExact(s.hashes);
  const registers = s.registers;
  let used = 0;
  for (let i = 0; i < M; i++) if (registers[i] !== 0) used++;
  return used * SPARSE_BYTES < DENSE_BYTES ? 's1:' + encodeSparse(registers, used) : 'd1:' + encodeDense(registers);
}

/** Reads any stored form ever written (0, undefined and null are empty); throws on an unknown prefix. */
export function decodeSketch(stored: unknown): DistinctSketch {
  if (stored === 0 || stored === undefined || stored === null) return EMPTY_SKETCH;
  if (typeof stored !== 'string') throw new SketchFormatError(`a stored sketch is 0 or a string, got ${typeof stored}`);
  const prefix = stored.slice(0, 3);
  const bytes = payload(stored);
  switch (prefix) {
    case 'e1:':
      return decodeExact(bytes);
    case 's1:':
      return decodeSparse(bytes);
    case 'd1:':
      return decodeDense(bytes);
    default:
      throw new SketchFormatError(`unknown stored sketch prefix ${JSON.stringify(prefix)}`);
  }
}

/** The bytes after the prefix; a base64 decoder skips characters it does not know, so check the length too. */
function payload(stored: string): Buffer {
  const text = stored.slice(3);
  const bytes = Buffer.from(text, 'base64url');
  if (Math.ceil((bytes.length * 4) / 3) !== text.length) throw new SketchFormatError('stored sketch is not base64url');
  return bytes;
}

function encodeExact(hashes: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(hashes.length * HASH_BYTES);
  for (let i = 0, o = 0; i < hashes.length; i++, o += HASH_BYTES) {
    const hash = hashes[i]!;
    const high = (hash / HIGH_SPAN) | 0;
    bytes[o] = high >>> 16;
    bytes[o + 1] = (high >>> 8) & 0xff;
    bytes[o + 2] = high & 0xff;
    bytes.writeUInt32BE(hash >>> 0, o + 3);
  }
  return bytes.toString('base64url');
}

function decodeExact(bytes: Buffer): DistinctSketch {
  const n = bytes.length / HASH_BYTES;
  if (!Number.isInteger(n) || n > DISTINCT_SKETCH.exactLimit) throw new SketchFormatError('bad exact sketch length');
  const hashes = new Array<number>(n);
  let previous = -1;
  for (let i = 0, o = 0; i < n; i++, o += HASH_BYTES) {
    const high = (bytes[o]! << 16) | (bytes[o + 1]! << 8) | bytes[o + 2]!;
    const hash = high * HIGH_SPAN + bytes.readUInt32BE(o + 3);
    if (high >= MAX_HIGH || hash <= previous) throw new SketchFormatError('exact sketch hashes out of order or range');
    hashes[i] = previous = hash;
  }
  return n === 0 ? EMPTY_SKETCH : exactSketch(hashes);
}

function encodeSparse(registers: Uint8Array, used: number): string {
  return sparseBytes(registers, used).toString('base64url');
}

/** Non-zero registers, 3 bytes each (index << 6 | value), ascending by index. */
export function sparseBytes(registers: Uint8Array, used: number): Buffer {
  const bytes = Buffer.allocUnsafe(used * SPARSE_BYTES);
  let o = 0;
  for (let i = 0; i < M; i++) {
    const value = registers[i]!;
    if (value === 0) continue;
    const entry = (i << 6) | value;
    bytes[o++] = entry >>> 16;
    bytes[o++] = (entry >>> 8) & 0xff;
    bytes[o++] = entry & 0xff;
  }
  return bytes;
}

function decodeSparse(bytes: Buffer): DistinctSketch {
  return hllSketch(raiseSparse(new Uint8Array(M), bytes));
}

/** Raises `registers` to the stored sparse registers (each to the larger of the two). */
export function raiseSparse(registers: Uint8Array, bytes: Uint8Array): Uint8Array {
  if (bytes.length % SPARSE_BYTES !== 0 || bytes.length >= DENSE_BYTES)
    throw new SketchFormatError('bad sparse sketch length');
  let previous = -1;
  for (let o = 0; o < bytes.length; o += SPARSE_BYTES) {
    const entry = (bytes[o]! << 16) | (bytes[o + 1]! << 8) | bytes[o + 2]!;
    const index = entry >>> 6;
    const value = entry & 0x3f;
    if (index <= previous || index >= M || value === 0 || value > MAX_RHO) {
      throw new SketchFormatError('sparse sketch entries out of order or range');
    }
    if (value > registers[index]!) registers[index] = value;
    previous = index;
  }
  return registers;
}

function encodeDense(registers: Uint8Array): string {
  return denseBytes(registers).toString('base64url');
}

/** Every register, 6 bits each, four to three bytes. */
export function denseBytes(registers: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(DENSE_BYTES);
  for (let i = 0, o = 0; i < M; i += 4, o += 3) {
    const group = (registers[i]! << 18) | (registers[i + 1]! << 12) | (registers[i + 2]! << 6) | registers[i + 3]!;
    bytes[o] = group >>> 16;
    bytes[o + 1] = (group >>> 8) & 0xff;
    bytes[o + 2] = group & 0xff;
  }
  return bytes;
}

function decodeDense(bytes: Buffer): DistinctSketch {
  return hllSketch(raiseDense(new Uint8Array(M), bytes));
}

/** Raises `registers` to the stored dense registers (each to the larger of the two). */
export function raiseDense(registers: Uint8Array, bytes: Uint8Array): Uint8Array {
  if (bytes.length !== DENSE_BYTES) throw new SketchFormatError('bad dense sketch length');
  for (let i = 0, o = 0; i < M; i += 4, o += 3) {
    const group = (bytes[o]! << 16) | (bytes[o + 1]! << 8) | bytes[o + 2]!;
    const r0 = group >>> 18;
    const r1 = (group >>> 12) & 0x3f;
    const r2 = (group >>> 6) & 0x3f;
    const r3 = group & 0x3f;
    if (r0 > MAX_RHO || r1 > MAX_RHO || r2 > MAX_RHO || r3 > MAX_RHO) {
      throw new SketchFormatError('dense sketch register out of range');
    }
    if (r0 > registers[i]!) registers[i] = r0;
    if (r1 > registers[i + 1]!) registers[i + 1] = r1;
    if (r2 > registers[i + 2]!) registers[i + 2] = r2;
    if (r3 > registers[i + 3]!) registers[i + 3] = r3;
  }
  return registers;
}

/**
 * Raises `registers` (the caller's own) to a stored HyperLogLog's, read straight from its bytes:
 * a report's hot path, without a register array per stored sketch. False when `stored` is not a
 * stored HyperLogLog (the caller decodes it instead).
 */
export function raiseStoredRegisters(registers: Uint8Array, stored: unknown): boolean {
  if (typeof stored !== 'string') return false;
  const prefix = stored.slice(0, 3);
  if (prefix === 'd1:') raiseDense(registers, payload(stored));
  else if (prefix === 's1:') raiseSparse(registers, payload(stored));
  else return false;
  return true;
}
