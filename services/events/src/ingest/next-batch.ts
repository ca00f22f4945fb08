/** Bounds of one group-commit message (INGEST_BATCH_MAX_EVENTS / INGEST_BATCH_MAX_BYTES). */
export interface BatchLimits {
  maxEvents: number;
  /** Bytes of the whole message, envelope included. */
  maxBytes: number;
}

/**
 * The one decision of group commit: how many of the waiting events (their encoded sizes, oldest
 * first, from `start`) go into the next message. As many as fit both bounds, counting the
 * separator between events and the envelope (`overhead`), and always at least one: a single
 * event is bounded by the event limits, far below any allowed maxBytes, so it is never stuck.
 */
export function nextBatchCount(sizes: readonly number[], start: number, limits: BatchLimits, overhead: number): number {
  const available = sizes.length - start;
  if (available <= 0) return 0;
  let bytes = overhead + sizes[start]!;
  let count = 1;
  while (count < available && count < limits.maxEvents) {
    const next = bytes + 1 + sizes[start + count]!;
    if (next > limits.maxBytes) break;
    bytes = next;
    count++;
  }
  return count;
}
