import type { Command } from '../command';
import { PROGRAM } from '../global-options';
import { stringOption } from '../option-values';

/** The answer of POST /admin/v1/rollups/rebuild. */
interface RollupRebuildView {
  from: string;
  to: string;
  hours: number;
}

export const rollupsRebuild: Command = {
  group: 'rollups',
  verb: 'rebuild',
  summary: 'Rebuild the rollups of a range of UTC days from raw events',
  description: [
    'Calls POST /admin/v1/rollups/rebuild on the events service. Marks every hour of the days as',
    'written, so the rollup role recomputes them from raw events, then every day and block above',
    'them. Reports stay exact meanwhile (slower: those days come from raw events). Days whose raw',
    'events retention already dropped are refused: their rollups cannot be recomputed.',
  ].join('\n'),
  options: {
    from: { type: 'string', value: 'YYYY-MM-DD', required: true, description: 'first UTC day' },
    to: { type: 'string', value: 'YYYY-MM-DD', required: true, description: 'last UTC day (inclusive)' },
  },
  positionals: [],
  examples: [`${PROGRAM} rollups rebuild --from 2026-10-01 --to 2026-10-31`],
  service: 'events',
  async run(ctx) {
    const body = { from: stringOption(ctx.values, 'from'), to: stringOption(ctx.values, 'to') };
    const result = await ctx.api.request<RollupRebuildView>('events', 'POST', '/admin/v1/rollups/rebuild', body);
    return {
      json: result,
      text: `Marked ${result.hours} hours (${result.from} .. ${result.to}) for rebuilding; the rollup role rebuilds them next.`,
    };
  },
};
