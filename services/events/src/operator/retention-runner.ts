import type { Db } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { RetentionJob } from '../retention/retention-job';
import { expiredBuckets } from '../retention/expired-buckets';
import { bucketDay } from '../storage/bucket-naming';

export interface RetentionRunResult {
  dry_run: boolean;
  retention_days: number;
  /** Buckets dropped by this run (with dry_run: those a run would drop now), oldest first. */
  dropped: string[];
  /** Day buckets left. */
  kept: number;
}

export interface RetentionRunnerOptions {
  prefix: string;
  retentionDays: number;
}

/**
 * `POST /admin/v1/retention/run`: one retention pass on demand, with the scheduled job's own
 * rule (RetentionJob.runOnce, which tolerates a concurrent scheduled pass dropping the same
 * bucket). A dry run applies the same rule to the listing without dropping anything.
 */
export class RetentionRunner {
  constructor(
    private readonly db: Db,
    private readonly job: RetentionJob,
    private readonly opts: RetentionRunnerOptions,
    private readonly logger: Logger,
  ) {}

  async run(dryRun: boolean, now = new Date()): Promise<RetentionRunResult> {
    const { prefix, retentionDays } = this.opts;
    let dropped: string[];
    let kept: number;
    if (dryRun) {
      const buckets = await this.bucketNames();
      dropped = expiredBuckets(buckets, prefix, now, retentionDays);
      kept = buckets.length - dropped.length;
    } else {
      dropped = await this.job.runOnce(now);
      kept = (await this.bucketNames()).length;
    }
    dropped.sort();
    this.logger.info('operator retention run', { dry_run: dryRun, dropped: dropped.length, kept });
    return { dry_run: dryRun, retention_days: retentionDays, dropped, kept };
  }

  /** Listed without a filter (portable subset) and matched by name, as the job does. */
  private async bucketNames(): Promise<string[]> {
    const collections = await this.db.listCollections({}, { nameOnly: true }).toArray();
    return collections.map((c) => c.name).filter((name) => bucketDay(this.opts.prefix, name) !== undefined);
  }
}
