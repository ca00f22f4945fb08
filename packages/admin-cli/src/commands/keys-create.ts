import type { Command } from '../command';
import { formatFields } from '../format/table';
import { PROGRAM } from '../global-options';
import { listOption } from '../option-values';

export interface IssuedKeyView {
  id: string;
  api_key: string;
  owner_ids: string[];
}

export function formatIssuedKey(k: IssuedKeyView): string {
  return [
    'API key created.',
    formatFields([
      ['id', k.id],
      ['owner_ids', k.owner_ids.join(', ')],
      ['api_key', k.api_key],
    ]),
  ].join('\n');
}

const KEY_SHOWN_ONCE =
  'Store the api_key now: it is shown only this once (the service keeps only its hash). Revoke the key by its id.';

export const keysCreate: Command = {
  group: 'keys',
  verb: 'create',
  summary: 'Issue an Events API reporting key for one or more owner ids',
  description: [
    'Calls POST /admin/v1/api-keys on the events service. The key may query reports of exactly',
    'these owner ids (an agency may hold one key for several owners). The secret api_key is',
    'printed once; list and revoke the key later by its id.',
  ].join('\n'),
  options: {
    owner: {
      type: 'string',
      value: 'ID',
      multiple: true,
      required: true,
      description: "an owner id (a user's unique_id)",
    },
  },
  positionals: [],
  examples: [
    `${PROGRAM} keys create --owner 1718000000000123`,
    `${PROGRAM} keys create --owner 1718000000000123 --owner 1718000000000456 --json | jq -r .api_key`,
  ],
  service: 'events',
  async run(ctx) {
    const key = await ctx.api.request<IssuedKeyView>('events', 'POST', '/admin/v1/api-keys', {
      owner_ids: listOption(ctx.values, 'owner'),
    });
    return { json: key, text: formatIssuedKey(key), notice: KEY_SHOWN_ONCE };
  },
};
