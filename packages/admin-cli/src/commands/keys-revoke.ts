import type { Command } from '../command';
import { PROGRAM } from '../global-options';

export const keysRevoke: Command = {
  group: 'keys',
  verb: 'revoke',
  summary: 'Revoke an Events API key',
  description: [
    'Calls DELETE /admin/v1/api-keys/ID on the events service. Reports with the key fail with 401',
    'at once on the process that served the call, and on other reporting processes within their',
    'key cache TTL (API_KEY_CACHE_TTL_MS, 30 s by default). An unknown id is a 404 (exit 1).',
  ].join('\n'),
  options: {},
  positionals: [
    { name: 'ID', description: "the key's id (from 'keys create' or 'keys list'), not the secret api_key" },
  ],
  examples: [`${PROGRAM} keys revoke 01926f3e-8a4b-7c1d-9e2f-0a1b2c3d4e5f`],
  service: 'events',
  async run(ctx) {
    const id = ctx.positionals[0]!;
    await ctx.api.request('events', 'DELETE', `/admin/v1/api-keys/${encodeURIComponent(id)}`);
    return { json: { id, revoked: true }, text: `API key ${id} revoked.` };
  },
};
