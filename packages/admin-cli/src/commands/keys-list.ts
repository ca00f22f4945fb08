import type { Command } from '../command';
import { formatTable } from '../format/table';
import { PROGRAM } from '../global-options';

export interface ApiKeyView {
  id: string;
  owner_ids: string[];
  created: string;
}

const OWNERS_SHOWN = 3;

function owners(ids: string[]): string {
  const shown = ids.slice(0, OWNERS_SHOWN).join(',');
  return ids.length > OWNERS_SHOWN ? `${shown} (+${ids.length - OWNERS_SHOWN} more)` : shown;
}

/** One row per key; long owner lists are shortened (--json has them all). */
export function formatKeyList(keys: ApiKeyView[]): string {
  if (keys.length === 0) return 'No API keys.';
  return formatTable(
    ['ID', 'CREATED (UTC)', 'OWNER IDS'],
    keys.map((k) => [k.id, k.created, owners(k.owner_ids)]),
  );
}

export const keysList: Command = {
  group: 'keys',
  verb: 'list',
  summary: 'List Events API keys (never their secrets)',
  description: 'Calls GET /admin/v1/api-keys on the events service: id, creation time and owner ids of every key.',
  options: {},
  positionals: [],
  examples: [
    `${PROGRAM} keys list`,
    `${PROGRAM} keys list --json | jq '.[] | select(.owner_ids | index("1718000000000123"))'`,
  ],
  service: 'events',
  async run(ctx) {
    const keys = await ctx.api.request<ApiKeyView[]>('events', 'GET', '/admin/v1/api-keys');
    return { json: keys, text: formatKeyList(keys) };
  },
};
