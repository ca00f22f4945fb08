import type { OptionSpec } from './command';

export const PROGRAM = 'campaign-events-admin';

export const DEFAULT_MANAGEMENT_URL = 'http://127.0.0.1:3000';
export const DEFAULT_EVENTS_URL = 'http://127.0.0.1:3001';

/** Accepted before or after the command. There is deliberately no option carrying the token itself. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  'management-url': {
    type: 'string',
    value: 'URL',
    description: `management service address (env MANAGEMENT_URL; default ${DEFAULT_MANAGEMENT_URL})`,
  },
  'events-url': {
    type: 'string',
    value: 'URL',
    description: `events service address (env EVENTS_URL; default ${DEFAULT_EVENTS_URL})`,
  },
  'admin-token-file': {
    type: 'string',
    value: 'PATH',
    description: 'read the operator token from this file (else env ADMIN_TOKEN, then env ADMIN_TOKEN_FILE)',
  },
  json: { type: 'boolean', description: 'print the raw JSON response instead of a table' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

export const TOKEN_NOTE = [
  "The operator token (the services' ADMIN_TOKEN) is read from the ADMIN_TOKEN environment",
  'variable or from a file (--admin-token-file PATH, or env ADMIN_TOKEN_FILE). No option takes',
  'the token itself, so it never lands in shell history or the process list. The CLI never prints it.',
].join('\n');

export const EXIT_CODES_NOTE = 'Exit codes: 0 success, 1 API or network error, 2 usage error.';
