import { DAY_MS, HOUR_MS } from '../../storage/time-units';
import type { PlanSpan } from '../plan/plan-report';

/**
 * Spans ending this close to now likely reach rollup units not built yet (an hour is built once
 * it has ended and its grace passed, a day once the day has ended), so their report likely reads
 * raw events. A day: generous, so a report of today or yesterday keeps its bucket listing beside
 * the marks lookup; a late event that dirties an older unit costs only the listing in sequence.
 */
const RECENT_MS = DAY_MS;

/**
 * Whether a report over these spans likely reads raw events (day buckets), so its listing of the
 * buckets that exist should go out beside the marks lookup rather than after its plan: a span
 * edge off the hour (no rollup unit ends there: the edge is always read raw), or a span ending
 * within RECENT_MS of now. A guess only: a report that reads raw events without it lists the
 * buckets once its plan has raw steps, and one that lists them early without reading raw just
 * paid a call beside another.
 */
export function readsRawLikely(spans: readonly PlanSpan[], now: number): boolean {
  for (const span of spans) {
    if (span.start % HOUR_MS !== 0 || span.end % HOUR_MS !== 0) return true;
    if (span.end > now - RECENT_MS) return true;
  }
  return false;
}
