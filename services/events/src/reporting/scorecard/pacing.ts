import { emptySample, mergeSampleInto, reachOf, type VisitorSample } from '../../sketches/visitor-sample';
import type { Estimated, PacingDay } from './scorecard-types';
import type { Estimate } from '../../sketches/visitor-sample';

/** One flight day as read: its impressions and their visitor sample (absent: none that day). */
export interface DayRead {
  day: string;
  /** 1 for the flight's first day. */
  dayOfFlight: number;
  impressions: number;
  sample?: VisitorSample;
}

export function estimated(e: Estimate): Estimated {
  return { value: e.value, exact: e.exact, error: e.exact ? null : e.relativeError };
}

/**
 * Pacing per day, `days` in order: the cumulative reach is the union of the day samples so far
 * (merged in order into one sample of its own, so the last one is the flight's reach), against
 * the straight line from 0 on the eve of the flight to `goal` on its last day. Pure; the day
 * samples are only read. Returns the days and the union of all of them.
 */
export function pacingOf(
  days: readonly DayRead[],
  goal: number | null,
  flightDays: number,
): { days: PacingDay[]; reached: VisitorSample } {
  const reached = emptySample();
  const out = days.map((d): PacingDay => {
    if (d.sample) mergeSampleInto(reached, d.sample);
    const reach = estimated(reachOf(reached));
    const line = goal && flightDays > 0 ? (goal * d.dayOfFlight) / flightDays : null;
    return { day: d.day, impressions: d.impressions, reach, goal_to_date: line, pace: paceOf(reach.value, line) };
  });
  return { days: out, reached };
}

function paceOf(reach: number, line: number | null): PacingDay['pace'] {
  if (line === null) return null;
  return reach > line ? 'ahead' : reach < line ? 'behind' : 'on_pace';
}
