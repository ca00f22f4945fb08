import type { ServiceName } from './admin-api';
import type { OptionValues } from './command';
import { DEFAULT_EVENTS_URL, DEFAULT_MANAGEMENT_URL } from './global-options';
import { UsageError } from './usage-error';

export interface Settings {
  urls: Record<ServiceName, string>;
  /** Undefined only when the command needs none. */
  adminToken: string | undefined;
  json: boolean;
}

/** A service address: absolute http(s), no query or fragment, without a trailing slash. */
export function serviceUrl(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${what} is not a URL: '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${what} must be an http or https URL: '${raw}'`);
  if (url.search || url.hash || url.username || url.password)
    throw new UsageError(`${what} must not carry a query, fragment or credentials`);
  return url.href.replace(/\/+$/, '');
}

/** The token as a header can carry it; whitespace around it (a file's newline) is dropped. */
function checkedToken(raw: string, source: string): string {
  const token = raw.trim();
  if (token === '') throw new UsageError(`the operator token from ${source} is empty`);
  // never echo the token itself, not even in an error
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new UsageError(`the operator token from ${source} contains spaces or non-ASCII characters`);
  return token;
}

async function readTokenFile(
  path: string,
  readFile: (path: string) => Promise<string>,
  source: string,
): Promise<string> {
  let text: string;
  try {
    text = await readFile(path);
  } catch (err) {
    throw new UsageError(
      `cannot read the operator token file ${source} ${path}: ${(err as { code?: string }).code ?? (err as Error).message}`,
    );
  }
  return checkedToken(text, `${source} ${path}`);
}

/**
 * Flags win over the environment; the token comes from --admin-token-file, ADMIN_TOKEN or
 * ADMIN_TOKEN_FILE, and is not read at all for a command that acts with a user's credentials.
 */
export async function resolveSettings(
  values: OptionValues,
  env: Record<string, string | undefined>,
  readFile: (path: string) => Promise<string>,
  needsOperatorToken = true,
): Promise<Settings> {
  const management = serviceUrl(
    str(values['management-url']) ?? nonEmpty(env.MANAGEMENT_URL) ?? DEFAULT_MANAGEMENT_URL,
    'the management URL',
  );
  const events = serviceUrl(
    str(values['events-url']) ?? nonEmpty(env.EVENTS_URL) ?? DEFAULT_EVENTS_URL,
    'the events URL',
  );
  const tokenFile = str(values['admin-token-file']);
  let adminToken: string | undefined;
  if (!needsOperatorToken) adminToken = undefined;
  else if (tokenFile !== undefined) adminToken = await readTokenFile(tokenFile, readFile, '--admin-token-file');
  else if (nonEmpty(env.ADMIN_TOKEN) !== undefined) adminToken = checkedToken(env.ADMIN_TOKEN!, 'ADMIN_TOKEN');
  else if (nonEmpty(env.ADMIN_TOKEN_FILE) !== undefined)
    adminToken = await readTokenFile(env.ADMIN_TOKEN_FILE!, readFile, 'ADMIN_TOKEN_FILE');
  else throw new UsageError('no operator token: set ADMIN_TOKEN in the environment or pass --admin-token-file PATH');
  return { urls: { management, events }, adminToken, json: values.json === true };
}

function str(v: OptionValues[string]): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}
