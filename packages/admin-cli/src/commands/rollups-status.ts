import type { Command } from '../command';
import { PROGRAM } from '../global-options';

/** The answer of GET /admin/v1/rollups. */
export interface RollupStatusView {
  dirty_units: Record<string, number>;
  oldest_dirty_hour: string | null;
  pending_generations: number;
}

export function formatRollupStatus(r: RollupStatusView): string {
  const dirty = Object.entries(r.dirty_units).filter(([, n]) => n > 0);
  const lines = [
    dirty.length === 0
      ? 'Rollups caught up: no unit written to since it was built.'
      : `Dirty units (answered from smaller units or raw events until rebuilt): ${dirty.map(([size, n]) => `${size} ${n}`).join(', ')}`,
  ];
  if (r.oldest_dirty_hour) lines.push(`Oldest dirty hour: ${r.oldest_dirty_hour}`);
  lines.push(`Builds in flight: ${r.pending_generations}`);
  return lines.join('\n');
}

export const rollupsStatus: Command = {
  group: 'rollups',
  verb: 'status',
  summary: 'Show what the rollup builder still has to build',
  description: [
    'Calls GET /admin/v1/rollups on the events service. Lists the rollup units (1h .. 32d) written to',
    'since they were built. Reports stay exact either way: a dirty unit is answered from smaller',
    'units or raw events until the rollup role rebuilt it. A dirty hour older than a few minutes',
    'means the rollup role is behind or not running (see events_rollup_lag_seconds).',
  ].join('\n'),
  options: {},
  positionals: [],
  examples: [`${PROGRAM} rollups status`, `${PROGRAM} rollups status --json`],
  service: 'events',
  async run(ctx) {
    const result = await ctx.api.request<RollupStatusView>('events', 'GET', '/admin/v1/rollups');
    return { json: result, text: formatRollupStatus(result) };
  },
};
