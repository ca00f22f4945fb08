import { DAY_MS } from '../storage/time-units';
import { DAY_LEVEL, unitSizeMs } from './rollup-units';
import { ZONE_DAY_LEVEL } from './zone-days';

/** One builder's part of the units when several build side by side (rollup-threads.ts). */
export interface Shard {
  /** 0 to count - 1. */
  index: number;
  count: number;
}

/** Whether `mark` belongs to `shard` (every unit when there is none). */
export function inShard(mark: { level: number; start: number }, shard: Shard | undefined): boolean {
  if (!shard || shard.count <= 1) return true;
  // a zone day goes with the UTC day its start falls in (whatever its zone: the same for every builder)
  if (mark.level === ZONE_DAY_LEVEL) return Math.floor(mark.start / DAY_MS) % shard.count === shard.index;
  const size = unitSizeMs(Math.max(mark.level, DAY_LEVEL));
  return Math.floor(mark.start / size) % shard.count === shard.index;
}

/** The builder that also does what looks at every unit (sweeps, the legacy conversion): the only one, or the first. */
export function isFirstShard(shard: Shard | undefined): boolean {
  return (shard?.index ?? 0) === 0;
}
