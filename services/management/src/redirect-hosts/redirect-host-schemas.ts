import { domainToASCII } from 'node:url';
import Joi from 'joi';
import { REDIRECT_HOST_PATTERN, isPublicSuffix } from '@cm/contracts';

/** Most entries one request may carry; the configurable quota (QUOTA_REDIRECT_HOSTS_PER_USER) is at most this. */
export const REDIRECT_HOSTS_MAX = 100;
/** A hostname is at most 253 characters; `*.` and a Unicode name (before punycode) may make the input longer. */
const ENTRY_MAX_LENGTH = 300;

/**
 * A host as the owner registry stores it: lowercase, IDN labels in punycode, no trailing dot, or
 * `*.` + such a host for any subdomain of it. undefined when it is not a hostname (a URL, a port,
 * a path, a bare `*.`).
 */
export function normalizeRedirectHost(input: string): string | undefined {
  const trimmed = input.trim().toLowerCase();
  const wildcard = trimmed.startsWith('*.');
  const name = wildcard ? trimmed.slice(2) : trimmed;
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  // domainToASCII also accepts IP literals and oddities; the pattern decides what a host entry is
  const ascii = /^[^/:?#@\s[\]\\%]+$/.test(bare) ? domainToASCII(bare) : '';
  const host = (wildcard ? '*.' : '') + ascii;
  return ascii !== '' && REDIRECT_HOST_PATTERN.test(host) ? host : undefined;
}

export interface SetRedirectHostsInput {
  /** Normalised, without repeats, in the order given. */
  hosts: string[];
}

const hostEntry = Joi.string()
  .max(ENTRY_MAX_LENGTH)
  .custom((value: string, helpers) => {
    const host = normalizeRedirectHost(value);
    if (host === undefined) return helpers.error('any.invalid');
    // `*.com` or `*.github.io` would let the pixel redirect to any domain registered under it
    return isPublicSuffix(host.startsWith('*.') ? host.slice(2) : host) ? helpers.error('host.publicSuffix') : host;
  })
  .messages({
    'any.invalid': '{{#label}} must be a hostname or *. followed by a hostname (no scheme, port or path)',
    'host.publicSuffix':
      '{{#label}} must not be a public suffix or a wildcard over one (com, co.uk, *.com, *.github.io): name a domain registered under it',
  });

/** PUT /api/v3/redirect-hosts/: the whole explicit list, replacing the stored one. */
export const setRedirectHostsSchema = Joi.object<SetRedirectHostsInput>({
  hosts: Joi.array().items(hostEntry).max(REDIRECT_HOSTS_MAX).single().required(),
}).custom((value: SetRedirectHostsInput) => ({ hosts: [...new Set(value.hosts)] }));
