export type ContentState = 'active' | 'inactive';

/**
 * The API does not define the rule; ours: an item is 'active' while today (in the campaign owner's time
 * zone) is within the campaign's start_date..end_date, both days included, else 'inactive'.
 * `YYYY-mm-dd` strings compare correctly as text.
 */
export function contentState(campaign: { start_date: string; end_date: string }, today: string): ContentState {
  return campaign.start_date <= today && today <= campaign.end_date ? 'active' : 'inactive';
}
