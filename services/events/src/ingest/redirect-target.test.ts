import type { OwnerLookup } from '../registry/owner-registry-watcher';
import { checkRedirectTarget, decideRedirect } from './redirect-target';

describe('redirect target (r)', () => {
  test.each([
    ['https://dest.example/', 'https://dest.example/'],
    ['http://dest.example', 'http://dest.example/'],
    ['HTTPS://Dest.Example/Path?q=a%20b#f', 'https://dest.example/Path?q=a%20b#f'],
    ['https://dest.example:8443/x', 'https://dest.example:8443/x'],
    ['https://bücher.example/ä', 'https://xn--bcher-kva.example/%C3%A4'],
    ['https://[2001:db8::1]/', 'https://[2001:db8::1]/'],
  ])('when r is %j, then it is accepted and the Location is %j', (raw, location) => {
    expect(checkRedirectTarget(raw)).toMatchObject({ ok: true, location });
  });

  test.each([
    ['javascript:alert(1)'],
    ['JavaScript:alert(1)'],
    ['data:text/html,x'],
    ['vbscript:x'],
    ['ftp://files.example/'],
    ['/relative'],
    ['relative/path'],
    ['//protocol-relative.example/'],
    ['https:/one-slash.example'],
    ['https:no-slash.example'],
    ['https:\\\\backslash.example'],
    ['https://good.example\\@evil.example'],
    ['https://good.example/\r\nLocation: x'],
    ['https://good.example/\n'],
    ['https://good.example/\t'],
    ['java\nscript:alert(1)'],
    [' https://leading-space.example'],
    ['https://trailing-space.example '],
    ['https://user:pw@evil.example/'],
    ['https://good.example@evil.example/'],
    ['https://'],
    ['https://#'],
    [''],
    [`https://a.example/${'x'.repeat(2048)}`],
  ])('when r is %j, then it is refused', (raw) => {
    expect(checkRedirectTarget(raw).ok).toBe(false);
  });
});

function registry(owners: Record<string, string[]>, ready = true): OwnerLookup {
  return { isReady: () => ready, has: (id) => id in owners, redirectHosts: (id) => owners[id] };
}

describe('redirect decision (only to hosts the owner allows)', () => {
  const owners = registry({ '42': ['shop.example', '*.news.example'], '7': [] });

  test.each([
    ['no r', undefined, '42', { kind: 'none' }],
    [
      'an allowed host',
      'https://shop.example/offer?x=1',
      '42',
      { kind: 'allowed', location: 'https://shop.example/offer?x=1' },
    ],
    [
      'an allowed host in capitals',
      'HTTPS://SHOP.EXAMPLE/a',
      '42',
      { kind: 'allowed', location: 'https://shop.example/a' },
    ],
    [
      'a subdomain of a wildcard entry',
      'https://www.news.example/',
      '42',
      { kind: 'allowed', location: 'https://www.news.example/' },
    ],
  ])('when %s, then the decision is right', (_what, r, owner, decision) => {
    expect(decideRedirect(r, owner, owners)).toEqual(decision);
  });

  test.each([
    ['a host the owner does not allow', 'https://phish.example/', '42'],
    ['a look-alike of an allowed host', 'https://shop.example.evil.net/', '42'],
    ['the bare domain of a wildcard entry', 'https://news.example/', '42'],
    ['an owner with no redirect hosts', 'https://shop.example/', '7'],
    ['an unknown owner', 'https://shop.example/', '999'],
    ['no owner_id', 'https://shop.example/', undefined],
    ['owner_id given twice', 'https://shop.example/', ['42', '42']],
    ['r given twice', ['https://shop.example/', 'https://shop.example/'], '42'],
    ['a javascript: target', 'javascript:alert(1)', '42'],
    ['a protocol-relative target', '//shop.example/', '42'],
    ['credentials before an allowed host', 'https://shop.example@phish.example/', '42'],
  ])('when r names %s, then it is refused (400, no redirect)', (_what, r, owner) => {
    expect(decideRedirect(r, owner, owners)).toMatchObject({ kind: 'refused', message: expect.stringMatching(/^r /) });
  });

  test('when r is refused because the owner is unknown or because its host is not allowed, then the decisions are identical', () => {
    const unknown = decideRedirect('https://shop.example/', '999', owners);
    expect(decideRedirect('https://phish.example/', '42', owners)).toEqual(unknown);
    expect(decideRedirect('https://shop.example/', '7', owners)).toEqual(unknown);
    expect(decideRedirect('https://shop.example/', undefined, owners)).toEqual(unknown);
  });

  test('when the registry is not loaded yet, then a well-formed r cannot be decided (503); a malformed one is still refused', () => {
    const loading = registry({}, false);
    expect(decideRedirect('https://shop.example/', '42', loading)).toEqual({ kind: 'undecided' });
    expect(decideRedirect('javascript:x', '42', loading).kind).toBe('refused');
  });
});
