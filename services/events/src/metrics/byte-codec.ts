/**
 * The binary stored form of rollup cells: unsigned varints (7 bits a byte, up to 2^53 - 1, what a
 * JS number holds exactly), raw bytes and UTF-8 strings. A reader never trusts what it reads:
 * every length is checked against the bytes left, so damaged or foreign bytes end in a
 * StoredFormatError, never in a loop or an allocation larger than the input.
 */
export class StoredFormatError extends Error {}

const MAX_VARINT_BYTES = 8; // 8 x 7 = 56 bits >= 53

/** Where each visitor hash of a dictionary is: its index, undefined for a hash it does not hold. */
export interface HashPositions {
  get(hash: number): number | undefined;
  readonly size: number;
}

export class ByteWriter {
  private buf: Buffer;
  private at = 0;
  /** Strings stored once per column (a table before its entries): their index, in first-use order. */
  private readonly interned = new Map<string, number>();
  /**
   * The page's visitor dictionary (sketches/visitor-dictionary.ts), hash -> index, when it has
   * one: exact visitor sets are written as indexes into it.
   */
  visitors?: HashPositions;
  /** Whether those indexes may be written in bits (sketch-binary.ts kind 6, page format 6). */
  visitorBits = false;

  /** `base`: a time (epoch ms) the column's times are written relative to (its unit's start). */
  constructor(
    initial = 256,
    readonly base = 0,
  ) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  /** A string of the column's table: its index is written; the table itself by `internedTable`. */
  intern(value: string): void {
    let i = this.interned.get(value);
    if (i === undefined) this.interned.set(value, (i = this.interned.size));
    this.uint(i);
  }

  /** The interned strings, in index order. */
  internedTable(): string[] {
    return [...this.interned.keys()];
  }

  get length(): number {
    return this.at;
  }

  /** The bytes written so far (a copy: the writer may be reused). */
  bytes(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.at));
  }

  byte(value: number): void {
    this.ensure(1);
    this.buf[this.at++] = value;
  }

  uint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a stored unsigned integer: ${value}`);
    this.ensure(MAX_VARINT_BYTES);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** A length-prefixed byte string. */
  blob(bytes: Uint8Array): void {
    this.uint(bytes.length);
    this.raw(bytes);
  }

  string(value: string): void {
    const length = Buffer.byteLength(value);
    this.uint(length);
    this.ensure(length);
    this.at += this.buf.write(value, this.at, 'utf8');
  }

  private ensure(more: number): void {
    if (this.at + more <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + more));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }
}

export class ByteReader {
  private at: number;
  /** The column's interned strings, and what a reader made of each (parsed once per column). */
  table: readonly string[] = [];
  /** The time the column's times are relative to (as ByteWriter.base). */
  base = 0;
  /**
   * The page's visitor dictionary, when it has one: what exact sets written as indexes point at;
   * or a function decoding it, called (once) by the first such set read (a page whose sets all
   * keep their hashes never decodes it).
   */
  visitors?: Float64Array | (() => Float64Array);
  private readonly made = new Map<number, unknown>();

  constructor(
    private readonly buf: Uint8Array,
    from = 0,
    private readonly end = buf.length,
  ) {
    this.at = from;
  }

  /** An interned string of the column's table, or what `make` makes of it (once per table entry). */
  interned(): string;
  interned<T>(make: (s: string) => T): T;
  interned<T>(make?: (s: string) => T): string | T {
    const i = this.uint();
    if (i >= this.table.length) throw new StoredFormatError('stored string index out of range');
    if (!make) return this.table[i]!;
    if (this.made.has(i)) return this.made.get(i) as T;
    const value = make(this.table[i]!);
    this.made.set(i, value);
    return value;
  }

  get offset(): number {
    return this.at;
  }

  get done(): boolean {
    return this.at >= this.end;
  }

  get left(): number {
    return this.end - this.at;
  }

  byte(): number {
    if (this.at >= this.end) throw new StoredFormatError('stored cell ends early');
    return this.buf[this.at++]!;
  }

  uint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(value)) break;
        return value;
      }
      scale *= 0x80;
    }
    throw new StoredFormatError('stored integer out of range');
  }

  /** A count of items that each take at least `minBytes`: bounded by what is left. */
  count(minBytes = 1): number {
    const n = this.uint();
    if (n * minBytes > this.left) throw new StoredFormatError('stored count larger than the bytes left');
    return n;
  }

  /** The bytes being read (`span`'s offsets are into them). */
  get source(): Uint8Array {
    return this.buf;
  }

  /** Steps over `length` bytes and says where they start in `source` (no view made: the hot loops of a page's sets). */
  span(length: number): number {
    if (length > this.left) throw new StoredFormatError('stored bytes end early');
    const at = this.at;
    this.at += length;
    return at;
  }

  raw(length: number): Uint8Array {
    if (length > this.left) throw new StoredFormatError('stored bytes end early');
    const out = this.buf.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }

  blob(): Uint8Array {
    return this.raw(this.uint());
  }

  string(): string {
    const bytes = this.blob();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  }

  skip(length: number): void {
    this.raw(length);
  }
}

/** A sorted table of distinct strings, front-coded: each stores the length it shares with the one before. */
export function writeStringTable(w: ByteWriter, sorted: readonly string[]): void {
  w.uint(sorted.length);
  let previous = Buffer.alloc(0);
  for (const s of sorted) {
    const bytes = Buffer.from(s, 'utf8');
    let shared = 0;
    const max = Math.min(previous.length, bytes.length);
    while (shared < max && previous[shared] === bytes[shared]) shared++;
    w.uint(shared);
    w.blob(bytes.subarray(shared));
    previous = bytes;
  }
}

export function readStringTable(r: ByteReader): string[] {
  const n = r.count(2);
  const out = new Array<string>(n);
  // Page keys are ASCII almost always (canonical URLs are percent-encoded, hosts punycode): then a
  // byte is a character, and a string is the previous one's prefix plus its suffix, with no copy
  // of the bytes. From the first string with a byte >= 0x80 on, strings are joined as bytes.
  let previous = '';
  let bytes: Uint8Array | undefined;
  for (let i = 0; i < n; i++) {
    const shared = r.uint();
    const suffix = r.blob();
    if (bytes === undefined && isAscii(suffix)) {
      if (shared > previous.length) throw new StoredFormatError('stored string table is damaged');
      previous = previous.slice(0, shared) + textOf(suffix, 'latin1');
      out[i] = previous;
      continue;
    }
    const before: Uint8Array = bytes ?? Buffer.from(previous, 'latin1');
    if (shared > before.length) throw new StoredFormatError('stored string table is damaged');
    bytes = new Uint8Array(shared + suffix.length);
    bytes.set(before.subarray(0, shared));
    bytes.set(suffix, shared);
    out[i] = textOf(bytes, 'utf8');
  }
  return out;
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

function textOf(bytes: Uint8Array, encoding: 'latin1' | 'utf8'): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString(encoding);
}
