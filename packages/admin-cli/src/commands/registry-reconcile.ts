import type { Command } from '../command';
import { PROGRAM } from '../global-options';

export const registryReconcile: Command = {
  group: 'registry',
  verb: 'reconcile',
  summary: 'Make the owner registry bucket equal the users collection now',
  description: [
    'Calls POST /admin/v1/registry/reconcile on the management service: one reconciliation pass,',
    'the one that also runs at start and every REGISTRY_RECONCILE_INTERVAL_MS (5 min by default).',
    'Missing or out-of-date owner records are written, owners without a user become tombstones,',
    'values that are no owner record and tombstones older than REGISTRY_TOMBSTONE_TTL_DAYS are',
    'purged. Use it after restoring the KV_owner_registry stream or after an incident; safe beside',
    'live traffic and at any time.',
  ].join('\n'),
  options: {},
  positionals: [],
  examples: [`${PROGRAM} registry reconcile`, `${PROGRAM} registry reconcile --json`],
  service: 'management',
  async run(ctx) {
    const result = await ctx.api.request<{ corrections: number }>('management', 'POST', '/admin/v1/registry/reconcile');
    const n = result.corrections;
    return {
      json: result,
      text:
        n === 0
          ? 'The owner registry already matched the users collection.'
          : `Corrected ${n} owner registry key${n === 1 ? '' : 's'}.`,
    };
  },
};
