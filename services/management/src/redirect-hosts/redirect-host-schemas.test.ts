import { validate } from '@cm/platform';
import { normalizeRedirectHost, setRedirectHostsSchema, REDIRECT_HOSTS_MAX } from './redirect-host-schemas';

describe('normalizeRedirectHost', () => {
  test.each([
    ['example.com', 'example.com'],
    ['  Shop.Example.COM ', 'shop.example.com'],
    ['example.com.', 'example.com'],
    ['*.Example.com', '*.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['192.0.2.10', '192.0.2.10'],
    ['localhost', 'localhost'],
  ])('when the entry is %j, then it is stored as %j', (input, host) => {
    expect(normalizeRedirectHost(input)).toBe(host);
  });

  test.each([
    'https://example.com',
    'example.com:8080',
    'example.com/path',
    'user@example.com',
    '*.',
    '*',
    '*.*.example.com',
    '*example.com',
    '[::1]',
    'exa mple.com',
    '',
    '-bad.example',
    `${'a'.repeat(64)}.example`,
    'a..b',
    'example.com?x',
    '%65xample.com',
  ])('when the entry is %j, then it is refused', (input) => {
    expect(normalizeRedirectHost(input)).toBeUndefined();
  });
});

describe('setRedirectHostsSchema', () => {
  test('when hosts repeat after normalisation, then each is kept once in the order given', () => {
    expect(validate(setRedirectHostsSchema, { hosts: ['B.example', 'a.example', 'b.example.'] })).toEqual({
      hosts: ['b.example', 'a.example'],
    });
  });

  test('when a form sends one host, then it is a list of one', () => {
    expect(validate(setRedirectHostsSchema, { hosts: 'a.example' })).toEqual({ hosts: ['a.example'] });
  });

  test('when wildcards name domains below a public suffix, then they are accepted', () => {
    expect(
      validate(setRedirectHostsSchema, { hosts: ['*.example.com', '*.Example.CO.UK', '*.user.github.io'] }),
    ).toEqual({ hosts: ['*.example.com', '*.example.co.uk', '*.user.github.io'] });
  });

  test('when an entry is a public suffix, then the message says so', () => {
    expect(() => validate(setRedirectHostsSchema, { hosts: ['*.co.uk'] }, 'redirect hosts')).toThrow(
      expect.objectContaining({
        details: [expect.objectContaining({ field: 'hosts.0', message: expect.stringContaining('public suffix') })],
      }),
    );
  });

  test('when the list is empty, then the explicit list is cleared', () => {
    expect(validate(setRedirectHostsSchema, { hosts: [] })).toEqual({ hosts: [] });
  });

  test.each([
    ['missing hosts', {}],
    ['a wrong type', { hosts: 42 }],
    ['an operator object', { hosts: { $set: ['a.example'] } }],
    ['an operator object as an entry', { hosts: [{ $gt: '' }] }],
    ['an unknown field', { hosts: [], owner_id: '1' }],
    ['too many entries', { hosts: Array.from({ length: REDIRECT_HOSTS_MAX + 1 }, (_, i) => `h${i}.example`) }],
    ['an oversized entry', { hosts: [`${'a'.repeat(400)}.example`] }],
    ['a URL', { hosts: ['https://a.example/'] }],
    ['a wildcard over a public suffix', { hosts: ['*.com'] }],
    ['a wildcard over a two-label public suffix', { hosts: ['a.example', '*.co.uk'] }],
    ['a wildcard over a private-section suffix', { hosts: ['*.github.io'] }],
    ['a wildcard over blogspot.com', { hosts: ['*.blogspot.com'] }],
    ['an uppercase wildcard over a public suffix', { hosts: ['*.COM'] }],
    ['a wildcard over a public suffix with a trailing dot', { hosts: ['*.co.uk.'] }],
    ['a wildcard over a punycode public suffix', { hosts: ['*.xn--p1ai'] }],
    ['a wildcard over a Unicode public suffix', { hosts: ['*.рф'] }],
    ['a bare public suffix', { hosts: ['com'] }],
    ['a bare two-label public suffix', { hosts: ['co.uk'] }],
  ])('when the body has %s, then validation fails naming the field', (_name, body) => {
    expect(() => validate(setRedirectHostsSchema, body, 'redirect hosts')).toThrow(
      expect.objectContaining({
        status: 400,
        details: expect.arrayContaining([
          expect.objectContaining({ field: expect.stringMatching(/^(hosts|owner_id)/) }),
        ]),
      }),
    );
  });
});
