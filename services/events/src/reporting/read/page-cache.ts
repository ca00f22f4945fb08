import { LRUCache } from 'lru-cache';
import type { DecodedPage } from '../../rollups/page-reader';

/**
 * Decoded rollup pages kept in the reporting process, by page id. A page belongs to one
 * generation, and a generation never changes once published (a rebuild writes a new one), so a
 * cached page is never stale: a report only looks pages up for the generations its plan takes
 * from the marks it just read. What makes this worth it: finished days and blocks are read by
 * report after report while they stay the same for days. Bounded by the pages' estimated bytes.
 */
export class PageCache {
  private readonly pages: LRUCache<string, DecodedPage>;
  /** Pages reports took from here, decoded already, since the start. */
  hits = 0;
  /** Pages reports read from the store and decoded (not here, or without the columns they needed). */
  reads = 0;

  /** `maxBytes` 0 keeps nothing (REPORT_PAGE_CACHE_MB=0): every report decodes what it reads. */
  constructor(maxBytes: number) {
    this.pages = new LRUCache<string, DecodedPage>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (page) => Math.max(1, page.bytes),
    });
  }

  get(id: string): DecodedPage | undefined {
    return this.pages.get(id);
  }

  /** Keeps a page (again, after more of its columns were decoded: its size grew). */
  put(id: string, page: DecodedPage): void {
    // a page larger than the whole cache is not kept (the cache's own rule)
    this.pages.set(id, page);
  }

  /** What one read of pages found here and what it read from the store (the cache's counters, for metrics). */
  note(hits: number, reads: number): void {
    this.hits += hits;
    this.reads += reads;
  }

  get size(): number {
    return this.pages.calculatedSize;
  }
}
