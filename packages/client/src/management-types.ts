import type { Category, ContentState, ContentType, Objective } from './enums';

/** Request and response bodies of the management API (services/management/openapi.yaml). */

/** `YYYY-mm-dd`, a real calendar date. */
export type DateString = string;
/** `YYYY-mm-dd HH:MM:SS` in UTC. */
export type DateTimeString = string;
/** An ISO-3166 English country name, e.g. "Germany" (case-insensitive on input). */
export type Country = string;

export interface User {
  user_name: string;
  email: string;
  /** A string of digits; the `owner_id` of this user's events. */
  unique_id: string;
  /** This user's bearer token for the management API. */
  api_token: string;
}

/** The caller itself (`getOwnUser()`): no token. */
export interface OwnUser {
  /** The `owner_id` of this user's events. */
  unique_id: string;
  email: string;
  user_name: string;
  /** IANA time zone name; the zone the user's campaign dates are meant in. */
  timezone: string;
}

export interface CreateUserInput {
  email: string;
  /** 8..128 characters. */
  password: string;
  /** Defaults to the e-mail when blank (recommended). */
  user_name?: string;
  /** IANA time zone name, e.g. "Europe/Berlin" (default UTC). */
  timezone?: string;
  target_geography?: Country | Country[];
}

/** The create fields except `email`; any other field is a 400. */
export interface EditUserInput {
  user_name?: string;
  password?: string;
  timezone?: string;
  target_geography?: Country | Country[];
}

export interface Campaign {
  name: string;
  token: string;
  start_date: DateString;
  end_date: DateString;
  category: Category;
  brand: string | null;
  reach: number | null;
  last_modified: DateTimeString;
  target_geography: Country[];
  objective: Objective | null;
}

/** What an edit returns: exactly the fields the API documents for an edit (no name, no last_modified). */
export type CampaignEdited = Omit<Campaign, 'name' | 'last_modified'>;

export interface Content {
  /** Normalised: scheme and host lower-cased, default port dropped. */
  url: string;
  content_type: ContentType | null;
  added: DateTimeString;
  /** The url token used in paths; derived from the URL, stable for the same URL. */
  token: string;
  state: ContentState;
  /** Fetched from the page in the background; "" until known. */
  title: string;
}

export type CampaignWithContent = Omit<Campaign, 'last_modified'> & { content: Content[] };

export interface CreateCampaignInput {
  name: string;
  start_date: DateString;
  end_date: DateString;
  category: Category;
  brand?: string | null;
  reach?: number | null;
  target_geography?: Country | Country[] | null;
  objective?: Objective | null;
}

/** Any subset of the create fields; `null` clears brand, reach, objective, target_geography. */
export type EditCampaignInput = Partial<CreateCampaignInput>;

export interface AddContentInput {
  /** Absolute http(s) URL without credentials, at most 2048 characters. */
  url: string;
  content_type?: ContentType;
}

export interface EditContentInput {
  content_type: ContentType;
}

/** Opt-in pagination of the list endpoints. */
export interface PageRequest {
  /** 1..200 items per page. */
  limit: number;
  /** The previous page's `next_cursor`, as given. */
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** Where the pixel may redirect a user's clicks (`r`). */
export interface RedirectHosts {
  /** The user's explicit list: hostnames, or `*.` + hostname for any subdomain (lowercase, punycode). */
  hosts: string[];
  /** Hosts of the user's content URLs, allowed as well (read-only: they follow the content). */
  content_hosts: string[];
}

/** What `POST /admin/v1/tokens/rekey` did (operator). */
export interface TokenRekeyResult {
  /** Tokens brought to the current keys by this pass. */
  rekeyed: number;
  /** Tokens sealed with a key no longer configured (their user ids are in the service log). */
  unreadable: number;
  /** Tokens still not on the current keys. */
  remaining: number;
}
