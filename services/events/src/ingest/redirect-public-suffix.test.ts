import type { OwnerLookup } from '../registry/owner-registry-watcher';
import { decideRedirect } from './redirect-target';

/** A record written before management refused wildcards over public suffixes. */
const owners: OwnerLookup = {
  isReady: () => true,
  has: (id) => id === '42',
  redirectHosts: (id) =>
    id === '42' ? ['*.com', '*.co.uk', '*.github.io', '*.blogspot.com', '*.shop.example.com'] : undefined,
};

describe('a stored wildcard over a public suffix', () => {
  test.each([
    'https://evil.com/',
    'https://evil.co.uk/x',
    'https://attacker.github.io/',
    'https://x.blogspot.com/',
    'https://EVIL.COM./',
  ])('when r is %s, then the pixel refuses to redirect there', (r) =>
    expect(decideRedirect(r, '42', owners).kind).toBe('refused'),
  );

  test('when r is under a wildcard over a registered domain in the same record, then it is still followed', () => {
    expect(decideRedirect('https://cdn.shop.example.com/a', '42', owners)).toEqual({
      kind: 'allowed',
      location: 'https://cdn.shop.example.com/a',
    });
  });
});
