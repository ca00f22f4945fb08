import { BSON } from 'mongodb';

/** MongoDB refuses any document larger than this (maxBsonObjectSize). */
const BSON_DOCUMENT_LIMIT = 16 * 1024 * 1024;
/** No page is packed past this, whatever a caller asks: room left for the insert command around it. */
export const MAX_PAGE_BYTES = BSON_DOCUMENT_LIMIT - 256 * 1024;

/**
 * The exact encoded size of a cell page while entries are added to it. Its `e` and `l` fields
 * are JSON arrays stored as BSON strings, so what counts is the UTF-8 length of the JSON text:
 * JSON writes a control character as a six-byte escape and a character outside ASCII as two to
 * four bytes, so counting characters can be off by a factor of six (and did let pages pass the
 * 16 MB limit). The rest of the document is measured by the BSON encoder itself.
 */
export class PageBytes {
  private readonly e: string[] = [];
  private readonly l: string[] = [];
  private eBytes = 2;
  private lBytes = 2;
  private readonly base: number;

  /** `header` is the page without its entries (`e` and `l` are set to '' here). */
  constructor(header: object) {
    this.base = BSON.calculateObjectSize({ ...header, e: '', l: '' });
  }

  get count(): number {
    return this.e.length;
  }

  /** The page's size in bytes with one more entry (already JSON text; `l` omitted: none) added. */
  sizeWith(e: string, l?: string): number {
    return this.base + this.eBytes + this.lBytes + itemBytes(this.e, e) + itemBytes(this.l, l);
  }

  add(e: string, l?: string): void {
    this.eBytes += itemBytes(this.e, e);
    this.lBytes += itemBytes(this.l, l);
    this.e.push(e);
    if (l !== undefined) this.l.push(l);
  }

  get size(): number {
    return this.base + this.eBytes + this.lBytes;
  }

  /** The `e` and `l` fields: the same text JSON.stringify gives for the arrays of entries. */
  text(): { e: string; l: string } {
    return { e: `[${this.e.join(',')}]`, l: `[${this.l.join(',')}]` };
  }
}

function itemBytes(list: readonly string[], item: string | undefined): number {
  return item === undefined ? 0 : Buffer.byteLength(item) + (list.length > 0 ? 1 : 0);
}
