import type { CellStore } from './cell-store';
import type { CellPageDocument } from './page-layout';

/**
 * Writes one generation's pages as they are made (an owner at a time, so a build holds one
 * owner's cells in memory): each batch's manifest part first, then its pages; `finish` writes
 * the manifest's head, which makes the generation complete. A build that dies leaves parts
 * without a head: the sweep finds them by their generation.
 *
 * With `behind`, `add` returns once the previous batch is stored and this one is under way, so
 * the builder computes the next owner while the server stores this one (at most two owners'
 * pages in memory). A failed write is thrown by the next `add` or by `finish`; before a
 * generation is dropped, `settled` waits for the write still going, so no page lands after it.
 */
export class GenerationWriter {
  private parts = 0;
  private pages = 0;
  private writing: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly store: CellStore,
    readonly g: string,
    private readonly behind = false,
  ) {}

  get written(): number {
    return this.pages;
  }

  async add(docs: readonly CellPageDocument[]): Promise<void> {
    if (docs.length === 0) return;
    await this.stored();
    // the parts already written number this batch's part: one write at a time
    const write = this.store.writePages(this.g, this.parts, docs).then((parts) => {
      this.parts = parts;
      this.pages += docs.length;
    });
    this.writing = write.catch((error: unknown) => {
      this.failure = { error };
    });
    if (!this.behind) await this.stored();
  }

  async finish(): Promise<void> {
    await this.stored();
    await this.store.finishGeneration(this.g, this.parts);
  }

  /** Once no write is going (its outcome known or not): what a build that gives up waits for. */
  async settled(): Promise<void> {
    await this.writing;
  }

  private async stored(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure.error;
  }
}
