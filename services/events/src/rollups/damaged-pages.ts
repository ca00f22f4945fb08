import { StoredFormatError } from '../metrics/byte-codec';
import { pageId, parsePageId, type CellPageDocument } from './page-layout';

/**
 * Where a stored page that does not decode is: taken from the id the reader asked for (which a
 * damaged document cannot change), never from what the page holds, so it can be logged.
 */
export interface DamagedPage {
  /** Its generation (`<unitId>@<gen>`). */
  g: string;
  owner: string;
  family: string;
  page: number;
}

/**
 * Pages read for a report or a build that do not decode: bytes cut short, a byte no format
 * writes, a document of another format. Their units are contained (BrokenUnits.damaged), never
 * answered from.
 */
export class DamagedPagesError extends Error {
  constructor(readonly pages: readonly DamagedPage[]) {
    super(`rollup pages do not decode: ${pages.length} in ${new Set(pages.map((p) => p.g)).size} generations`);
  }
}

/** The page an id names, for a page that failed to decode. */
export function damagedPageOf(id: string): DamagedPage {
  const at = parsePageId(id);
  return at
    ? { g: at.g, owner: at.owner, family: at.family, page: at.page }
    : { g: id, owner: '', family: '', page: 0 };
}

/**
 * More pages than any owner's family fills (a page holds up to 4 MB, the per-owner cell cap
 * bounds a family): a larger count is damage, and is never turned into that many page ids.
 */
const MAX_PAGES = 10_000;

/**
 * A page's own fields must be those its id names (a document copied under another id, or of
 * another format, is not this page), and its page count a small number on page 0 only.
 */
export function checkPageFields(doc: Pick<CellPageDocument, '_id' | 'g' | 'o' | 'f' | 'p' | 'x'>): void {
  // the id its fields would make (a field of another type makes another id)
  if (typeof doc.p !== 'number' || doc._id !== pageId(doc.g, doc.o, doc.f, doc.p))
    throw new StoredFormatError('stored page is not the page its id names');
  if (doc.x === undefined) return;
  if (doc.p !== 0 || !Number.isSafeInteger(doc.x) || doc.x < 1 || doc.x > MAX_PAGES)
    throw new StoredFormatError('stored page count out of range');
}

/** Runs a decode; a StoredFormatError becomes the damaged page of `id`, anything else is thrown. */
export function decodeOrDamaged(id: string, decode: () => void): DamagedPage | undefined {
  try {
    decode();
    return undefined;
  } catch (err) {
    if (err instanceof StoredFormatError) return damagedPageOf(id);
    throw err;
  }
}
