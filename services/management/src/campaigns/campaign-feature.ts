import { Router } from 'express';
import type { Db } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { ManagementConfig } from '../config';

export interface CampaignFeatureDeps {
  db: Db;
  logger: Logger;
  config: Pick<ManagementConfig, 'TITLE_FETCH_TIMEOUT_MS' | 'TITLE_FETCH_MAX_BYTES' | 'TITLE_FETCH_MAX_REDIRECTS' | 'TITLE_FETCH_ALLOW_LOOPBACK'>;
}

export interface CampaignFeature {
  /** Campaign and content routes, mounted under /api/v3 behind bearer auth. */
  routers: Router[];
  /** Deletes every campaign (and its content) of a deleted user. */
  deleteAllForOwner(ownerId: string): Promise<void>;
  start(): Promise<void>;
  /** Stops background work (title fetches) and waits for what is in flight. */
  stop(): Promise<void>;
}

/** Placeholder until campaigns and content land. */
export async function createCampaignFeature(_deps: CampaignFeatureDeps): Promise<CampaignFeature> {
  return { routers: [Router()], deleteAllForOwner: async () => {}, start: async () => {}, stop: async () => {} };
}
