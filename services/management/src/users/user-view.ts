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
