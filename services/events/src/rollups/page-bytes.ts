import { BSON } from 'mongodb';
import { SIDE_FIELDS, type SideField } from './aggregates/aggregate';
import type { Sides } from './aggregates/cell-aggregates';

/** MongoDB refuses any document larger than this (maxBsonObjectSize). */
const BSON_DOCUMENT_LIMIT = 16 * 1024 * 1024;
/** No page is packed past this, whatever a caller asks: room left for the insert command around it. */
export const MAX_PAGE_BYTES = BSON_DOCUMENT_LIMIT - 256 * 1024;

/**
 * The exact encoded size of a cell page while entries are added to it. Its `e` and side fields
 * are JSON arrays stored as BSON strings, so what counts is the UTF-8 length of the JSON text:
 * JSON writes a control character as a six-byte escape and a character outside ASCII as two to
 * four bytes, so counting characters can be off by a factor of six (and did let pages pass the
 * 16 MB limit). The rest of the document is measured by the BSON encoder itself.
 */
export class PageBytes {
  private readonly e: string[] = [];
  private readonly side = new Map<SideField, string[]>(SIDE_FIELDS.map((f) => [f, []]));
  private eBytes = 2;
  private sideBytes = 2 * SIDE_FIELDS.length;
  private readonly base: number;

  /** `header` is the page without its entries (`e` and the side fields are set to '' here). */
  constructor(header: object) {
    this.base = BSON.calculateObjectSize({ ...header, e: '', ...Object.fromEntries(SIDE_FIELDS.map((f) => [f, ''])) });
  }

  get count(): number {
    return this.e.length;
  }

  /** The page's size in bytes with one more entry (already JSON text; side fields omitted: none) added. */
  sizeWith(e: string, sides: Sides<string> = {}): number {
    let size = this.base + this.eBytes + this.sideBytes + itemBytes(this.e, e);
    for (const [field, list] of this.side) size += itemBytes(list, sides[field]);
    return size;
  }

  add(e: string, sides: Sides<string> = {}): void {
    this.eBytes += itemBytes(this.e, e);
    this.e.push(e);
    for (const [field, list] of this.side) {
      const item = sides[field];
      this.sideBytes += itemBytes(list, item);
      if (item !== undefined) list.push(item);
    }
  }

  get size(): number {
    return this.base + this.eBytes + this.sideBytes;
  }

  /** The `e` and side fields: the same text JSON.stringify gives for the arrays of entries. */
  text(): { e: string } & Record<SideField, string> {
    const out = { e: `[${this.e.join(',')}]` } as { e: string } & Record<SideField, string>;
    for (const [field, list] of this.side) out[field] = `[${list.join(',')}]`;
    return out;
  }
}

function itemBytes(list: readonly string[], item: string | undefined): number {
  return item === undefined ? 0 : Buffer.byteLength(item) + (list.length > 0 ? 1 : 0);
}
