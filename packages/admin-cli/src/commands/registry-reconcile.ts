import type { Command } from '../command';
import { PROGRAM } from '../global-options';

export const registryReconcile: Command = {
  group: 'registry',
  verb: 'reconcile',
  summary: 'Make the owner and campaign registry buckets equal the users and campaigns now',
  description: [
    'Calls POST /admin/v1/registry/reconcile on the management service: one reconciliation pass of',
    'each registry, the ones that also run at start and every REGISTRY_RECONCILE_INTERVAL_MS (5 min',
    'by default). Missing or out-of-date owner and campaign records are written, owners and',
    'campaigns that no longer exist become tombstones, values that are no record, tombstones older',
    'than REGISTRY_TOMBSTONE_TTL_DAYS and unused parts of large campaign records are purged. Use it',
    'after restoring or losing the KV_owner_registry or KV_campaign_registry stream, or after an',
    'incident; safe beside live traffic and at any time.',
  ].join('\n'),
  options: {},
  positionals: [],
  examples: [`${PROGRAM} registry reconcile`, `${PROGRAM} registry reconcile --json`],
  service: 'management',
  async run(ctx) {
    const result = await ctx.api.request<{ corrections: number; campaign_corrections?: number }>(
      'management',
      'POST',
      '/admin/v1/registry/reconcile',
    );
    const keys = (n: number, registry: string) => `${n} ${registry} registry key${n === 1 ? '' : 's'}`;
    const owners = result.corrections;
    const campaigns = result.campaign_corrections ?? 0;
    return {
      json: result,
      text:
        owners + campaigns === 0
          ? 'The registries already matched the users and campaigns collections.'
          : `Corrected ${keys(owners, 'owner')} and ${keys(campaigns, 'campaign')}.`,
    };
  },
};
