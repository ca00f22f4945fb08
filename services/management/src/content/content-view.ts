import { formatUtcDateTime } from '@cm/platform';
import type { ContentDocument } from './content-document';
import { contentState, type ContentState } from './content-state';

/** A content item, in the API's documented field order. */
export interface ContentView {
  url: string;
  content_type: string | null;
  added: string;
  token: string;
  state: ContentState;
  title: string;
}

export function toContentView(
  item: ContentDocument,
  campaign: { start_date: string; end_date: string },
  today: string,
): ContentView {
  return {
    url: item.url,
    content_type: item.content_type,
    added: formatUtcDateTime(item.added),
    token: item.token,
    state: contentState(campaign, today),
    title: item.title,
  };
}
