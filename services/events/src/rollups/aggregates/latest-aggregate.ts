import { isLaterEvent } from '../../storage/event-order';
import type { Aggregate } from './aggregate';

/** The latest event of a cell and device: created (epoch ms), event id, its whole stored metadata. */
export type Latest = [created: number, id: string, metadata: Record<string, string>];

/** The latest event (its metadata answers a report's metadata keys): stored per device in a cell's `l`. */
export const latestAggregate: Aggregate<Latest | null> = {
  empty: () => null,
  merge: laterOf,
};

/** The later of two latest events (isLaterEvent: the same order as the report pipeline's `$max`). */
function laterOf(a: Latest | null, b: Latest | null): Latest | null {
  if (!a) return b;
  if (!b) return a;
  return isLaterEvent(a[0], a[1], b[0], b[1]) ? a : b;
}
