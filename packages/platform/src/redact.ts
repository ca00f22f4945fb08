/**
 * Masks values that must never reach a log line: credentials in object fields, headers, URLs
 * and free text. Names are compared after normalising every spelling a server would accept or a
 * client might send: percent-encoding (`api%5Fkey`, even twice), case (`API_KEY`), separators
 * (`api-key`, `api.key`, `apiKey`) and array brackets (`api_key[]`).
 */

export const REDACTED = '[redacted]';

/** Normalised names (lower case, no separators) whose values are secrets. */
const SECRET_NAMES = new Set([
  'password',
  'passwd',
  'pwd',
  'apikey',
  'xapikey',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'secret',
  'clientsecret',
]);

/** Any name ending like this is a secret too: api_token, admin_token, access_token, new_password, ... */
const SECRET_SUFFIXES = ['token', 'password', 'secret', 'apikey'];

function percentDecode(s: string): string {
  let out = s;
  // bounded: a name encoded twice (%255F) is decoded twice
  for (let i = 0; i < 3 && out.includes('%'); i++) {
    const next = out.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === out) break;
    out = next;
  }
  return out;
}

/** `api%5FKey[]` -> `apikey`: the form in which names are compared. */
function normaliseSecretName(name: string): string {
  return percentDecode(name)
    .toLowerCase()
    .replace(/\[[^\]]*\]/g, '')
    .replace(/[^a-z0-9]/g, '');
}

export function isSecretName(name: string): boolean {
  const n = normaliseSecretName(name);
  if (n.length === 0) return false;
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

// name=value pairs in URLs, query strings, form bodies and text: the name starts the string or
// follows ?, &, ;, whitespace, a quote or a comma; the value runs to the next separator
const PAIR = /(^|[?&;\s"',{(])([^=&?;#\s"',{}()]{1,128})=([^&;#\s"',}]*)/g;
// "name": "value" and name: value in JSON-ish or header-ish text
const KEYED =
  /(["']?)([A-Za-z0-9_%.[\]-]{1,128})\1(\s*:\s*)("(?:[^"\\]|\\.)*"|'[^']*'|Bearer\s+\S+|Basic\s+\S+|[^\s,;}]+)/g;
// the password of a URL's user info (mongodb://user:password@host, nats://user:password@host)
const USER_INFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;
// a credential scheme followed by its token, whatever label precedes it
const SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/** Masks the secret parts of a string (URL, query string, log message). */
export function redactString(s: string): string {
  if (s.length === 0) return s;
  return s
    .replace(USER_INFO, `$1${REDACTED}@`)
    .replace(SCHEME, (_all, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(PAIR, (all, lead: string, name: string) => (isSecretName(name) ? `${lead}${name}=${REDACTED}` : all))
    .replace(KEYED, (all, quote: string, name: string, colon: string) =>
      isSecretName(name) ? `${quote}${name}${quote}${colon}${quote ? `"${REDACTED}"` : REDACTED}` : all,
    );
}

/** Masks secrets at any depth: values of secret-named fields, secret parts of strings. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[depth]';
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretName(k) ? REDACTED : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}
