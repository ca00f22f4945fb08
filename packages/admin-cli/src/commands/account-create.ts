import type { Command, CommandContext } from '../command';
import { formatFields } from '../format/table';
import { PROGRAM } from '../global-options';
import { flagOption, listOption, stringOption } from '../option-values';
import { UsageError } from '../usage-error';

export interface AccountView {
  user_name: string;
  email: string;
  unique_id: string;
  api_token: string;
}

export function formatAccount(a: AccountView): string {
  return [
    'Account created.',
    formatFields([
      ['unique_id', a.unique_id],
      ['email', a.email],
      ['user_name', a.user_name],
      ['api_token', a.api_token],
    ]),
  ].join('\n');
}

const TOKEN_SHOWN_ONCE =
  'Store the api_token now: this command shows it only once. The account owner sends it as "Authorization: Bearer <api_token>".';

/** One line from stdin, like `docker login --password-stdin`: the trailing newline is not part of it. */
async function password(ctx: CommandContext): Promise<string> {
  const flag = stringOption(ctx.values, 'password');
  const fromStdin = flagOption(ctx.values, 'password-stdin');
  if (flag !== undefined && fromStdin) throw new UsageError('give either --password or --password-stdin, not both');
  if (flag !== undefined) return flag;
  if (!fromStdin) throw new UsageError('missing password: pass --password-stdin (recommended) or --password PASSWORD');
  const text = (await ctx.io.readStdin()).replace(/\r?\n$/, '');
  if (text === '') throw new UsageError('--password-stdin: standard input is empty');
  return text;
}

export const accountCreate: Command = {
  group: 'account',
  verb: 'create',
  summary: 'Create an account owner on the management service',
  description: [
    'Calls POST /admin/v1/accounts. The new owner gets a unique_id (its owner_id in the Events API)',
    'and an api_token for the management API; both are printed. The service checks the fields:',
    'e-mail syntax, password 8..128 characters, IANA timezone, ISO-3166 English country names.',
    'An e-mail already taken is a 409 (exit 1).',
  ].join('\n'),
  options: {
    email: { type: 'string', value: 'EMAIL', required: true, description: "the owner's e-mail address" },
    'password-stdin': { type: 'boolean', description: 'read the password from standard input (recommended)' },
    password: {
      type: 'string',
      value: 'PASSWORD',
      description: 'the password (visible in shell history and ps: prefer --password-stdin)',
    },
    'user-name': { type: 'string', value: 'NAME', description: 'user name (default: the e-mail)' },
    timezone: { type: 'string', value: 'TZ', description: 'IANA timezone name, e.g. Europe/Berlin' },
    country: {
      type: 'string',
      value: 'COUNTRY',
      multiple: true,
      description: 'target geography, an ISO-3166 English country name',
    },
  },
  positionals: [],
  examples: [
    `${PROGRAM} account create --email owner@example.com --password-stdin < password.txt`,
    `printf '%s' "$PW" | ${PROGRAM} account create --email owner@example.com --password-stdin --timezone Europe/Berlin --country Germany --country Austria`,
    `${PROGRAM} account create --email owner@example.com --password-stdin --json < password.txt | jq -r .unique_id`,
  ],
  service: 'management',
  async run(ctx) {
    const body: Record<string, unknown> = { email: stringOption(ctx.values, 'email'), password: await password(ctx) };
    const userName = stringOption(ctx.values, 'user-name');
    if (userName !== undefined) body.user_name = userName;
    const timezone = stringOption(ctx.values, 'timezone');
    if (timezone !== undefined) body.timezone = timezone;
    const countries = listOption(ctx.values, 'country');
    if (countries.length > 0) body.target_geography = countries;
    const account = await ctx.api.request<AccountView>('management', 'POST', '/admin/v1/accounts', body);
    return { json: account, text: formatAccount(account), notice: TOKEN_SHOWN_ONCE };
  },
};
