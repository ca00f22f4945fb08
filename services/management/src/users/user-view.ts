import type { UserDocument } from './user-store';

export interface UserView {
  user_name: string;
  email: string;
  unique_id: string;
  api_token: string;
}

/** The four public fields of a user (`apiToken` opened from its sealed form); password and the rest are never returned. */
export function toUserView(doc: UserDocument, apiToken: string): UserView {
  return { user_name: doc.user_name, email: doc.email, unique_id: doc._id, api_token: apiToken };
}

/** What a user reads about itself: enough to query its own events (owner_id, zone), no secret. */
export interface OwnUserView {
  unique_id: string;
  email: string;
  user_name: string;
  timezone: string;
}

export function toOwnUserView(doc: UserDocument): OwnUserView {
  return { unique_id: doc._id, email: doc.email, user_name: doc.user_name, timezone: doc.timezone };
}
