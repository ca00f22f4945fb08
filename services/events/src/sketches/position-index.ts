import { mix52 } from './mix-52';

/** A free slot: a key is never negative. */
const FREE = -1;

/**
 * The position of each of a set of number keys (0, 1, 2... in the order they were added), by open
 * addressing over the keys as doubles: a report's packed group keys, a unit's visitor hashes. A
 * Map boxes every key past 31 bits (a group of two fields is a key of some 44 bits, a visitor
 * hash one of 52): an allocation, and a hash of the boxed number, for each key added or looked
 * up. Keys are integers in [0, 2^53).
 */
export class PositionIndex {
  private keys: Float64Array;
  private at: Int32Array;
  private count = 0;

  /** `expected`: how many keys it will hold (its table is made for them at once). */
  constructor(expected = 0) {
    let n = 64;
    while (n < 2 * expected) n *= 2;
    this.keys = new Float64Array(n).fill(FREE);
    this.at = new Int32Array(n);
  }

  get size(): number {
    return this.count;
  }

  /** The key's position, or undefined when it is not held. */
  get(key: number): number | undefined {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = mix52(key) & mask; ; i = (i + 1) & mask) {
      const held = keys[i]!;
      if (held === key) return this.at[i]!;
      if (held === FREE) return undefined;
    }
  }

  /** A key not held yet; returns its position. */
  add(key: number): number {
    const position = this.count++;
    if (2 * this.count > this.keys.length) this.grow();
    this.place(key, position);
    return position;
  }

  private place(key: number, position: number): void {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = mix52(key) & mask;
    while (keys[i] !== FREE) i = (i + 1) & mask;
    keys[i] = key;
    this.at[i] = position;
  }

  /** Twice the slots, every key held placed again. */
  private grow(): void {
    const [keys, at] = [this.keys, this.at];
    this.keys = new Float64Array(2 * keys.length).fill(FREE);
    this.at = new Int32Array(2 * keys.length);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== FREE) this.place(keys[i]!, at[i]!);
  }
}
