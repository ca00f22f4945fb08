import { Router } from 'express';
import type { Db } from 'mongodb';
import type { Logger, Registry } from '@cm/platform';
import type { EventsConfig } from '../config';

export interface ReportingFeatureDeps {
  db: Db;
  logger: Logger;
  metrics: Registry;
  config: Pick<EventsConfig, 'ADMIN_TOKEN' | 'BUCKET_PREFIX' | 'REPORT_RATE_LIMIT_PER_MINUTE' | 'REPORT_MAX_RANGE_DAYS' | 'BODY_LIMIT'>;
}

export interface ReportingFeature {
  /** `POST /api/v1/events/` and the `/admin/v1/api-keys` endpoints; mounted on the events Express app. */
  routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Placeholder until reporting lands. */
export async function createReportingFeature(_deps: ReportingFeatureDeps): Promise<ReportingFeature> {
  return { routers: [Router()], start: async () => {}, stop: async () => {} };
}
