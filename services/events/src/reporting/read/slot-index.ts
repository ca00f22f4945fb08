import { mix52 } from '../../sketches/mix-52';

/** A free slot: a packed key is never negative. */
const FREE = -1;

/**
 * Values by a number key (a report's packed group keys, report-groups.ts): open addressing over
 * the keys as doubles. A Map boxes every key past 31 bits (a group of two fields is a key of some
 * 44 bits): an allocation, and a hash of the boxed number, for each entry a report merges. Keys
 * are integers in [0, 2^53).
 */
export class SlotIndex<T> {
  private keys = new Float64Array(64).fill(FREE);
  private at = new Int32Array(64);
  private readonly values: T[] = [];

  get size(): number {
    return this.values.length;
  }

  get(key: number): T | undefined {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = mix52(key) & mask; ; i = (i + 1) & mask) {
      const held = keys[i]!;
      if (held === key) return this.values[this.at[i]!];
      if (held === FREE) return undefined;
    }
  }

  /** A key not held yet, with its value. */
  add(key: number, value: T): void {
    this.values.push(value);
    if (2 * this.values.length > this.keys.length) this.grow();
    this.place(key, this.values.length - 1);
  }

  private place(key: number, index: number): void {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = mix52(key) & mask;
    while (keys[i] !== FREE) i = (i + 1) & mask;
    keys[i] = key;
    this.at[i] = index;
  }

  /** Twice the slots, every key held placed again. */
  private grow(): void {
    const [keys, at] = [this.keys, this.at];
    this.keys = new Float64Array(2 * keys.length).fill(FREE);
    this.at = new Int32Array(2 * keys.length);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== FREE) this.place(keys[i]!, at[i]!);
  }
}
