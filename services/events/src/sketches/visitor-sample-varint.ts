/** Bytes this build cannot read: an unknown version (a newer writer) or damaged bytes. */
export class SampleFormatError extends Error {}

const floor = Math.floor;

/** Unsigned LEB128 of a safe integer, by division: values go past 32 bits. */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v >= 0x80000000) {
    out[at++] = (v % 0x80) | 0x80;
    v = floor(v / 0x80);
  }
  // below 2^31: 32-bit integer operations
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

export interface Reader {
  bytes: Uint8Array;
  at: number;
}

/** At most 8 bytes (2^56), no redundant trailing zero byte. */
export function readVarint(reader: Reader): number {
  const first = reader.bytes[reader.at];
  if (first !== undefined && first < 0x80) {
    reader.at++;
    return first;
  }
  let value = 0;
  let scale = 1;
  for (let n = 0; n < 8; n++) {
    if (reader.at >= reader.bytes.length) throw new SampleFormatError('stored visitor sample is truncated');
    const byte = reader.bytes[reader.at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (byte === 0 && n > 0) throw new SampleFormatError('stored visitor sample has a padded varint');
      return value;
    }
    scale *= 0x80;
  }
  throw new SampleFormatError('stored visitor-sample varint longer than 8 bytes');
}
