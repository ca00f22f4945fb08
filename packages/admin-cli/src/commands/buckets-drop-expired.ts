import type { Command } from '../command';
import { PROGRAM } from '../global-options';
import { flagOption } from '../option-values';

/** The answer of POST /admin/v1/retention/run. */
export interface RetentionRunView {
  dry_run: boolean;
  retention_days: number;
  dropped: string[];
  kept: number;
}

export function formatRetentionRun(r: RetentionRunView): string {
  const kept = `${r.kept} day bucket${r.kept === 1 ? '' : 's'} kept.`;
  if (r.dropped.length === 0) return `No day bucket is past the ${r.retention_days}-day retention. ${kept}`;
  const n = `${r.dropped.length} expired day bucket${r.dropped.length === 1 ? '' : 's'}`;
  const head = r.dry_run
    ? `Would drop ${n} (dry run: nothing was dropped; retention ${r.retention_days} days):`
    : `Dropped ${n} (retention ${r.retention_days} days):`;
  return [head, ...r.dropped.map((b) => `  ${b}`), kept].join('\n');
}

export const bucketsDropExpired: Command = {
  group: 'buckets',
  verb: 'drop-expired',
  summary: 'Drop day buckets past retention now',
  description: [
    'Calls POST /admin/v1/retention/run on the events service (a process with MongoDB: consumer',
    'or reporting role). Drops every day bucket collection whose whole UTC day lies more than',
    'RETENTION_DAYS in the past, with the rollups of those days: the scheduled retention job',
    'itself, run now instead of after RETENTION_INTERVAL_MS. Dropped events are gone: back up',
    'first if in doubt (--dry-run lists the buckets that would go).',
  ].join('\n'),
  options: {
    'dry-run': { type: 'boolean', description: 'only list the buckets that would be dropped' },
  },
  positionals: [],
  examples: [`${PROGRAM} buckets drop-expired --dry-run`, `${PROGRAM} buckets drop-expired --json`],
  service: 'events',
  async run(ctx) {
    const dryRun = flagOption(ctx.values, 'dry-run');
    const result = await ctx.api.request<RetentionRunView>('events', 'POST', '/admin/v1/retention/run', {
      dry_run: dryRun,
    });
    return { json: result, text: formatRetentionRun(result) };
  },
};
