import type { CampaignRecord } from '@cm/contracts';
import { UnavailableError, ValidationError } from '@cm/platform';
import type { CampaignLookup } from '../../registry/campaign-registry-watcher';
import { zonedInstant } from '../../storage/zone-clock';

/** What a report takes from a campaign: its content URLs, its flight and its owner's zone. */
export type CampaignScope = Pick<CampaignRecord, 'urls' | 'start_date' | 'end_date' | 'timezone'>;

/** Seconds a client waits when the registry is still being replayed (a start takes about that long). */
const NOT_READY_RETRY_AFTER_S = 2;

/**
 * The campaign a report names, once the key's owner scope is checked. Unknown, deleted and
 * another owner's tokens are one and the same 400, so a caller learns nothing about tokens it
 * cannot read; before the registry's replay is complete nothing can be told: 503.
 */
export function campaignOf(lookup: CampaignLookup, ownerId: string, token: string): CampaignRecord {
  if (!lookup.isReady())
    throw new UnavailableError('the campaign registry is not loaded yet; try again shortly', NOT_READY_RETRY_AFTER_S);
  const campaign = lookup.campaign(ownerId, token);
  if (!campaign)
    throw new ValidationError('invalid body', [{ field: 'campaign', message: 'is not a campaign of this owner_id' }]);
  return campaign;
}

/** The flight: start_date 00:00 to end_date 24:00 in the campaign's zone, inclusive ms (empty when end precedes start). */
export function campaignFlight(campaign: CampaignScope): { from: number; to: number } {
  const [sy, sm, sd] = campaign.start_date.split('-').map(Number) as [number, number, number];
  const [ey, em, ed] = campaign.end_date.split('-').map(Number) as [number, number, number];
  return {
    from: zonedInstant(campaign.timezone, sy, sm, sd),
    to: zonedInstant(campaign.timezone, ey, em, ed + 1) - 1,
  };
}

/** Calendar days from start_date to end_date, both included (0 when end precedes start). */
export function flightDays(campaign: Pick<CampaignRecord, 'start_date' | 'end_date'>): number {
  const days =
    (Date.parse(`${campaign.end_date}T00:00:00Z`) - Date.parse(`${campaign.start_date}T00:00:00Z`)) / 86_400_000;
  return Math.max(0, days + 1);
}
