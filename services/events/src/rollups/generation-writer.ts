import type { CellStore } from './cell-store';
import type { CellPageDocument } from './page-layout';

/**
 * Writes one generation's pages as they are made (an owner at a time, so a build holds one
 * owner's cells in memory): each batch's manifest part first, then its pages; `finish` writes
 * the manifest's head, which makes the generation complete. A build that dies leaves parts
 * without a head: the sweep finds them by their generation.
 */
export class GenerationWriter {
  private parts = 0;
  private pages = 0;

  constructor(
    private readonly store: CellStore,
    readonly g: string,
  ) {}

  get written(): number {
    return this.pages;
  }

  async add(docs: readonly CellPageDocument[]): Promise<void> {
    if (docs.length === 0) return;
    this.parts = await this.store.writePages(this.g, this.parts, docs);
    this.pages += docs.length;
  }

  async finish(): Promise<void> {
    await this.store.finishGeneration(this.g, this.parts);
  }
}
