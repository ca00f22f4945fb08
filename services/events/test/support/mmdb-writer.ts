import { isIP } from 'node:net';

/**
 * A small writer of MaxMind DB files (format 2.0: an IPv6 search tree with 24-bit records, the
 * IPv4 space at ::/96, a data section, the metadata) for tests: country databases whose networks
 * the test chooses, so no test depends on where real addresses are. Networks must not overlap.
 */

/** A value of the data section: what the tests put in records (strings, maps, arrays, unsigned integers, booleans). */
export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue };

export interface MmdbOptions {
  buildEpoch?: Date;
  databaseType?: string;
  /** 6 (default): IPv4 and IPv6; 4: an IPv4-only tree. */
  ipVersion?: 4 | 6;
}

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

/** `networks`: CIDR (`198.51.100.0/24`, `2001:db8:1::/48`) to the record its addresses get. */
export function writeMmdb(networks: Record<string, MmdbValue>, options: MmdbOptions = {}): Buffer {
  const ipVersion = options.ipVersion ?? 6;
  const root: TreeNode = { children: [undefined, undefined] };
  const data = new DataSection();
  for (const [cidr, value] of Object.entries(networks)) insert(root, bitsOf(cidr, ipVersion), data.add(value));

  // node numbers in breadth-first order, the root first
  const nodes: TreeNode[] = [root];
  for (let i = 0; i < nodes.length; i++)
    for (const child of nodes[i]!.children) if (child !== undefined && 'children' in child) nodes.push(child);
  const number = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;
  const record = (child: TreeNode['children'][number]): number => {
    if (child === undefined) return nodeCount;
    if ('children' in child) return number.get(child)!;
    return nodeCount + 16 + child.offset;
  };
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, i) => {
    tree.writeUIntBE(record(node.children[0]), i * 6, 3);
    tree.writeUIntBE(record(node.children[1]), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: new Unsigned(UINT32, nodeCount),
    record_size: new Unsigned(UINT16, 24),
    ip_version: new Unsigned(UINT16, ipVersion),
    database_type: options.databaseType ?? 'test-country',
    languages: ['en'],
    binary_format_major_version: new Unsigned(UINT16, 2),
    binary_format_minor_version: new Unsigned(UINT16, 0),
    build_epoch: new Unsigned(UINT64, Math.floor((options.buildEpoch ?? new Date()).getTime() / 1000)),
    description: { en: 'test database written by test/support/mmdb-writer.ts' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), data.bytes(), METADATA_MARKER, metadata]);
}

interface TreeNode {
  children: [TreeNode | DataLeaf | undefined, TreeNode | DataLeaf | undefined];
}
interface DataLeaf {
  offset: number;
}

function insert(root: TreeNode, bits: number[], leaf: DataLeaf): void {
  let node = root;
  bits.forEach((bit, depth) => {
    const child = node.children[bit as 0 | 1];
    if (depth === bits.length - 1) {
      if (child !== undefined) throw new Error('overlapping networks are not supported');
      node.children[bit as 0 | 1] = leaf;
    } else if (child === undefined) {
      const next: TreeNode = { children: [undefined, undefined] };
      node.children[bit as 0 | 1] = next;
      node = next;
    } else if ('children' in child) {
      node = child;
    } else {
      throw new Error('overlapping networks are not supported');
    }
  });
}

/** The prefix bits of a network, in the tree's address space (IPv4 at ::/96 of an IPv6 tree). */
function bitsOf(cidr: string, ipVersion: 4 | 6): number[] {
  const [address, prefixText] = cidr.split('/') as [string, string | undefined];
  const family = isIP(address);
  if (family === 0 || prefixText === undefined) throw new Error(`not a network: ${cidr}`);
  if (family === 6 && ipVersion === 4) throw new Error(`an IPv6 network in an IPv4 tree: ${cidr}`);
  const bytes = family === 4 ? address.split('.').map(Number) : ipv6Bytes(address);
  const all = bytes.flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
  const bits = family === 4 && ipVersion === 6 ? [...new Array<number>(96).fill(0), ...all] : all;
  const prefix = Number(prefixText) + (family === 4 && ipVersion === 6 ? 96 : 0);
  if (!(prefix > 0 && prefix <= bits.length)) throw new Error(`bad prefix length: ${cidr}`);
  return bits.slice(0, prefix);
}

function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** Each distinct value is stored once; records point at it. */
class DataSection {
  private readonly chunks: Buffer[] = [];
  private readonly offsets = new Map<string, number>();
  private size = 0;

  add(value: MmdbValue): DataLeaf {
    const key = JSON.stringify(value);
    let offset = this.offsets.get(key);
    if (offset === undefined) {
      offset = this.size;
      const bytes = encode(value);
      this.chunks.push(bytes);
      this.size += bytes.length;
      this.offsets.set(key, offset);
    }
    return { offset };
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** An unsigned integer of a given width (the metadata's fields have fixed types). */
class Unsigned {
  constructor(
    readonly type: number,
    readonly value: number,
  ) {}
}

type Encodable = MmdbValue | Unsigned | Encodable[] | { [key: string]: Encodable };

// type numbers of the format; 8 and up are "extended" (a zero type field and the type - 7 in the next byte)
const UTF8 = 2;
const UINT16 = 5;
const UINT32 = 6;
const MAP = 7;
const UINT64 = 9;
const ARRAY = 11;
const BOOLEAN = 14;

function encode(value: Encodable): Buffer {
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([control(UTF8, text.length), text]);
  }
  if (typeof value === 'boolean') return control(BOOLEAN, value ? 1 : 0);
  if (typeof value === 'number') return unsigned(UINT32, value);
  if (value instanceof Unsigned) return unsigned(value.type, value.value);
  if (Array.isArray(value)) return Buffer.concat([control(ARRAY, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(MAP, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

function unsigned(type: number, n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not an unsigned integer: ${n}`);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

/** The control byte, the extended type byte if any, and the size's extra bytes. */
function control(type: number, size: number): Buffer {
  const head = type > 7 ? [0, type - 7] : [type << 5];
  let sizeBits: number;
  let extra: number[];
  if (size < 29) [sizeBits, extra] = [size, []];
  else if (size < 285) [sizeBits, extra] = [29, [size - 29]];
  else if (size < 65_821) [sizeBits, extra] = [30, [(size - 285) >> 8, (size - 285) & 0xff]];
  else [sizeBits, extra] = [31, [(size - 65_821) >> 16, ((size - 65_821) >> 8) & 0xff, (size - 65_821) & 0xff]];
  head[0]! |= sizeBits;
  return Buffer.from([...head, ...extra]);
}
