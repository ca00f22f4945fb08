import type { Caveat } from './scorecard-types';

/** How long a cookieless visitor's salt lives (VISITOR_SALT_PERIOD). */
export type SaltPeriod = 'day' | 'week' | 'month';

const PERIOD_TEXT: Record<SaltPeriod, string> = { day: 'UTC day', week: 'ISO week', month: 'month' };

/**
 * What the reach of a scorecard counts. An event does not record how its visitor was told (the
 * ingest keeps only the hash), so both kinds are stated: a publisher `vid` is one person across
 * days and devices; a cookieless visitor is a salted hash of address and User-Agent that is new
 * every salt period, so over a flight longer than one period the same person counts once per
 * period.
 */
export function visitorCaveats(saltPeriod: SaltPeriod): Caveat[] {
  const period = PERIOD_TEXT[saltPeriod];
  return [
    {
      code: 'visitor_basis_unrecorded',
      message:
        'Reach counts visitors as the pixel identified them, and events do not record how: hits with a publisher vid ' +
        'are one visitor across days and devices; cookieless hits are a hash of address and User-Agent under a salt ' +
        `that changes every ${period}, so across ${period}s the same person counts again: reach is over-counted and ` +
        'frequency under-counted for cookieless traffic. Send vid for reach over several days.',
    },
  ];
}
