/** Event ids remembered at most (a few MB): bounds memory when many events are refused at once. */
const DEFAULT_CAPACITY = 50_000;

/**
 * How often this process saw the database refuse each event, by event id. A message's delivery
 * count is no measure of that: it also counts the deliveries that failed for an outage, so an
 * event refused once after a long outage would look refused many times. An id leaves when its
 * event is settled; beyond the capacity the oldest is forgotten, which only delays a dead letter
 * (its count starts again), never brings one early: should the database refuse far more events
 * at once (a validator refusing everything), they stay in the stream until it is fixed rather
 * than all going to the dead-letter stream. Counts are per process: after a restart, or on
 * another replica, an event gets its attempts again.
 */
export class RejectionCounts {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** Counts one more refusal of this event; returns how many there were so far. */
  add(id: string): number {
    const n = (this.counts.get(id) ?? 0) + 1;
    // re-inserted at the end: the map's order is the eviction order
    this.counts.delete(id);
    this.counts.set(id, n);
    if (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value!);
    return n;
  }

  forget(id: string): void {
    this.counts.delete(id);
  }

  get size(): number {
    return this.counts.size;
  }
}
