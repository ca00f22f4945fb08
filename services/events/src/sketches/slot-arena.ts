/**
 * Slots per chunk: 64 KB, more than the widest window (1,723 keys), and under the size from which
 * the C allocator maps every buffer from the system on its own (128 KB), so a chunk is reused
 * memory rather than a system call and fresh pages each.
 */
const CHUNK_SLOTS = 8192;

/**
 * Zeroed count slots handed out from shared chunks, never taken back: a report's dense quantile
 * windows (thousands per report, a few hundred slots each) cost one buffer per chunk instead of
 * one each, and their bytes lie outside the young generation, whose collections would otherwise
 * copy every live window a report holds, again at every collection while the report merges. A
 * chunk is freed with the last window in it (windows live as long as their report's groups).
 */
export class SlotArena {
  /** The chunk the last `take` placed its slots in. */
  chunk = new Float64Array(0);
  private next = 0;

  constructor(private readonly chunkSlots = CHUNK_SLOTS) {}

  /** The offset in `chunk` (read it right after) of `n` zeroed slots no one else holds. */
  take(n: number): number {
    if (this.next + n > this.chunk.length) {
      this.chunk = new Float64Array(Math.max(this.chunkSlots, n));
      this.next = 0;
    }
    const at = this.next;
    this.next += n;
    return at;
  }
}
