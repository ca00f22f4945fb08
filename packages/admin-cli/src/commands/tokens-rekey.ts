import type { Command } from '../command';
import { PROGRAM } from '../global-options';

/** The answer of POST /admin/v1/tokens/rekey. */
export interface RekeyView {
  rekeyed: number;
  unreadable: number;
  remaining: number;
}

export function formatRekey(r: RekeyView): string {
  const lines = [
    `${r.rekeyed} api token${r.rekeyed === 1 ? '' : 's'} brought to the current keys; ${r.remaining} remaining.`,
  ];
  if (r.unreadable > 0)
    lines.push(
      `${r.unreadable} cannot be opened with TOKEN_ENCRYPTION_KEYS (their user ids are in the management log): put the removed key back.`,
    );
  else if (r.remaining === 0)
    lines.push('Every token is on the current keys: keys that are no longer first may be removed.');
  return lines.join('\n');
}

export const tokensRekey: Command = {
  group: 'tokens',
  verb: 'rekey',
  summary: 'Bring every stored api_token to the current keys now',
  description: [
    "Calls POST /admin/v1/tokens/rekey on the management service: reseals every user's api_token",
    'under the first key of TOKEN_ENCRYPTION_KEYS and redoes its lookup hash under TOKEN_LOOKUP_KEY',
    '(documents of versions that stored tokens in clear are migrated too). Every management start',
    'runs the same pass. During a key rotation, remove the old key only once this reports 0',
    'remaining (docs/operations.md, section 12). Safe to run at any time and more than once.',
  ].join('\n'),
  options: {},
  positionals: [],
  examples: [`${PROGRAM} tokens rekey`, `${PROGRAM} tokens rekey --json`],
  service: 'management',
  async run(ctx) {
    const result = await ctx.api.request<RekeyView>('management', 'POST', '/admin/v1/tokens/rekey');
    return { json: result, text: formatRekey(result) };
  },
};
