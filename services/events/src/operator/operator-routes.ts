import { Router } from 'express';
import type { Db } from 'mongodb';
import {
  adminAuth,
  asyncHandler,
  bodyParsers,
  isFormBody,
  validate,
  type Logger,
  type NatsConnection,
} from '@cm/platform';
import type { EventsConfig } from '../config';
import type { RetentionJob } from '../retention/retention-job';
import { deadLetterStreamConfig, eventStreamConfig, writerConsumerConfig } from '../stream/stream-config';
import type { RollupRebuild } from '../rollups/rollup-rebuild';
import { retentionRunSchema, rollupRebuildSchema } from './operator-schemas';
import { PipelineInspector } from './pipeline-inspector';
import { RetentionRunner } from './retention-runner';

type StreamSettings = Parameters<typeof eventStreamConfig>[0] & Parameters<typeof writerConsumerConfig>[0];

export interface OperatorRoutesDeps {
  nc: NatsConnection;
  /** Without MongoDB (an ingest-only process) only the pipeline endpoint is served. */
  db?: Db;
  /** The composition root's retention job (rollups included), the one the consumer role schedules. */
  retention?: RetentionJob;
  config: StreamSettings & Pick<EventsConfig, 'ADMIN_TOKEN' | 'BUCKET_PREFIX' | 'RETENTION_DAYS' | 'BODY_LIMIT'>;
  logger: Logger;
  /** Rollup status and rebuild (processes with MongoDB). */
  rollups?: RollupRebuild;
}

/**
 * Operator endpoints of the events service, behind ADMIN_TOKEN:
 * - `GET /admin/v1/pipeline`: stream, writer consumer (lag) and dead-letter stream state;
 * - `POST /admin/v1/retention/run` `{dry_run?}`: one retention pass now (rollups of expired days, then their buckets);
 * - `GET /admin/v1/rollups`: dirty units by size, the oldest dirty hour, builds in flight;
 * - `POST /admin/v1/rollups/rebuild` `{from, to}` (UTC days): mark those days for rebuilding.
 */
export function createOperatorRoutes(deps: OperatorRoutesDeps): Router {
  const { nc, db, config, logger } = deps;
  const router = Router();
  const auth = adminAuth(config.ADMIN_TOKEN);

  const pipeline = new PipelineInspector(nc, {
    stream: eventStreamConfig(config).name,
    consumer: writerConsumerConfig(config).durable_name ?? config.CONSUMER_DURABLE,
    deadLetterStream: deadLetterStreamConfig(config).name,
  });
  router.get(
    '/admin/v1/pipeline',
    auth,
    asyncHandler(async (_req, res) => {
      res.json(await pipeline.status());
    }),
  );

  if (db && deps.retention) {
    const retention = new RetentionRunner(
      db,
      deps.retention,
      { prefix: config.BUCKET_PREFIX, retentionDays: config.RETENTION_DAYS },
      logger,
    );
    router.post(
      '/admin/v1/retention/run',
      auth,
      ...bodyParsers({ limit: config.BODY_LIMIT }),
      asyncHandler(async (req, res) => {
        const input = validate(retentionRunSchema, req.body, 'retention run', { convert: isFormBody(req) });
        res.json(await retention.run(input.dry_run));
      }),
    );
  }

  const rollups = deps.rollups;
  if (rollups) {
    router.get(
      '/admin/v1/rollups',
      auth,
      asyncHandler(async (_req, res) => {
        res.json(await rollups.status());
      }),
    );
    router.post(
      '/admin/v1/rollups/rebuild',
      auth,
      ...bodyParsers({ limit: config.BODY_LIMIT }),
      asyncHandler(async (req, res) => {
        const input = validate(rollupRebuildSchema, req.body, 'rollup rebuild', { convert: true });
        const result = await rollups.rebuild(input.from, input.to);
        logger.info('operator rollup rebuild', { ...result });
        res.json(result);
      }),
    );
  }

  return router;
}
