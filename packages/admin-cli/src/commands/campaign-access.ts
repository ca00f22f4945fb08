import {
  ApiError as ClientApiError,
  CampaignEventsError,
  EventsClient,
  ManagementClient,
  NetworkError as ClientNetworkError,
} from '@campaign-events/client';
import { ApiError, CommandFailure, NetworkError } from '../api-error';
import type { CommandContext, OptionSpec } from '../command';
import { stringOption } from '../option-values';
import { UsageError } from '../usage-error';
import { readUserSecret } from '../user-secret';

const UNAUTHORIZED_HINT =
  "hint: the management api_token (MANAGEMENT_API_TOKEN) must be the campaign owner's, the Events API key (EVENTS_API_KEY) one issued for that owner";

/** The options of the campaign commands: the owner's credentials, never the operator's. */
export const CAMPAIGN_OPTIONS: Record<string, OptionSpec> = {
  owner: {
    type: 'string',
    value: 'UNIQUE_ID',
    description: "the campaign owner's unique_id; then no management api_token is needed",
  },
  'api-token-file': {
    type: 'string',
    value: 'PATH',
    description:
      "read the campaign owner's management api_token from this file (else env MANAGEMENT_API_TOKEN; only without --owner)",
  },
  'api-key-file': {
    type: 'string',
    value: 'PATH',
    description: 'read the Events API key for that owner from this file (else env EVENTS_API_KEY)',
  },
};

export const CAMPAIGN_CREDENTIALS_NOTE = [
  "Acts as the campaign's owner, not as the operator: the Events API key must be one issued for",
  "the owner. The owner's unique_id is --owner, or is read from the management API with the owner's",
  'api_token. The two secrets come from the environment or a file, never from a flag holding them;',
  'the operator token is not used.',
].join('\n');

/** The Events client with the owner's key, the owner's id, and the management client when it was needed for it. */
export async function campaignAccess(
  ctx: CommandContext,
): Promise<{ events: EventsClient; ownerId?: string; management?: ManagementClient }> {
  const apiKey = await readUserSecret(ctx.values, ctx.io, {
    what: 'Events API key',
    fileOption: 'api-key-file',
    envName: 'EVENTS_API_KEY',
  });
  // one attempt per call, like every other command: the operator re-runs knowingly
  const common = { fetch: ctx.io.fetch, retry: { maxAttempts: 1 } };
  const events = new EventsClient({ baseUrl: ctx.urls.events, apiKey, ...common });
  const ownerId = stringOption(ctx.values, 'owner');
  if (ownerId !== undefined) {
    if (!/^\d{1,32}$/.test(ownerId)) throw new UsageError('--owner must be a unique_id (digits)');
    return { events, ownerId };
  }
  const apiToken = await readUserSecret(ctx.values, ctx.io, {
    what: 'management api_token',
    fileOption: 'api-token-file',
    envName: 'MANAGEMENT_API_TOKEN',
  });
  return { events, management: new ManagementClient({ baseUrl: ctx.urls.management, apiToken, ...common }) };
}

/** The client's errors as the CLI reports them (exit 1), without the request's query string. */
export function cliError(err: unknown): unknown {
  if (err instanceof ClientApiError) {
    const prefix = `${err.request} -> ${err.status} ${err.code}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    return new ApiError(err.status, err.code, `${err.request}: ${message}`, err.details, UNAUTHORIZED_HINT);
  }
  if (err instanceof ClientNetworkError) return new NetworkError(err.message);
  if (err instanceof CampaignEventsError) return new CommandFailure('unexpected_response', err.message);
  return err;
}
