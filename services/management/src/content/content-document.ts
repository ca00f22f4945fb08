/** The API's content types, exact spelling. */
export const CONTENT_TYPES = [
  'Article',
  'Content Hub',
  'Image Gallery',
  'Infographic',
  'List',
  'Quiz',
  'RSS Feed',
  'Video & Article',
  'Video',
  'Long Form',
] as const;

/** pending: not fetched yet (re-queued at start-up); done: fetched (title may be ""); failed: gave up, title stays "". */
export type TitleState = 'pending' | 'done' | 'failed';

/** A content item, embedded in its campaign document. */
export interface ContentDocument {
  /** Derived from the canonical URL (see contentToken); unique within the campaign. */
  token: string;
  /** The URL as pasted, normalised as a browser shows it (see normalizeContentUrl): what the API answers. */
  url: string;
  /**
   * The page's key: contentToken of its canonical URL (canonicalContentUrl, the events service's
   * form), unique within the campaign; for items added since, the same as the token. A 22-character
   * key rather than the canonical URL itself, which would double what a 2048-character URL costs
   * and take the largest campaign (5000 such items) past MongoDB's 16 MB per document. Missing in
   * items stored before it existed, until the start-up backfill: read it through pageKeyOf.
   */
  page_key?: string;
  /**
   * The redirect host the URL contributes to the owner's registry record (redirectHostOf; "" when
   * it can contribute none). Missing in items stored before redirect hosts existed, until the
   * start-up backfill.
   */
  host: string;
  /** null: not set on add. */
  content_type: string | null;
  added: Date;
  title: string;
  title_state: TitleState;
}
