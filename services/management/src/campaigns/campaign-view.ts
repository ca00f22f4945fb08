import { formatUtcDateTime } from '@cm/platform';
import { toContentView, type ContentView } from '../content/content-view';
import type { CampaignDocument, CampaignSummary } from './campaign-store';

/** List and create. Unset optional fields: brand, reach, objective null; target_geography []. */
export interface CampaignListView {
  name: string;
  token: string;
  start_date: string;
  end_date: string;
  category: string;
  brand: string | null;
  reach: number | null;
  last_modified: string;
  target_geography: string[];
  objective: string | null;
}

/** Edit (the API returns exactly these fields). */
export type CampaignEditView = Omit<CampaignListView, 'name' | 'last_modified'>;

/** Read with content. */
export type CampaignReadView = Omit<CampaignListView, 'last_modified'> & { content: ContentView[] };

/** The fields every campaign view shares (exactly what an edit returns). */
export function toCampaignEditView(doc: CampaignSummary): CampaignEditView {
  return {
    token: doc._id,
    start_date: doc.start_date,
    end_date: doc.end_date,
    category: doc.category,
    brand: doc.brand,
    reach: doc.reach,
    target_geography: doc.target_geography,
    objective: doc.objective,
  };
}

export function toCampaignListView(doc: CampaignSummary): CampaignListView {
  return { name: doc.name, ...toCampaignEditView(doc), last_modified: formatUtcDateTime(doc.last_modified) };
}

/** `today` is the owner's local date, which decides each item's state. */
export function toCampaignReadView(doc: CampaignDocument, today: string): CampaignReadView {
  return {
    name: doc.name,
    ...toCampaignEditView(doc),
    content: doc.content.map((item) => toContentView(item, doc, today)),
  };
}
