import { checkRedirectTarget } from './redirect-target';

describe('redirect target (r)', () => {
  test.each([
    ['https://dest.example/', 'https://dest.example/'],
    ['http://dest.example', 'http://dest.example/'],
    ['HTTPS://Dest.Example/Path?q=a%20b#f', 'https://dest.example/Path?q=a%20b#f'],
    ['https://dest.example:8443/x', 'https://dest.example:8443/x'],
    ['https://bücher.example/ä', 'https://xn--bcher-kva.example/%C3%A4'],
    ['https://[2001:db8::1]/', 'https://[2001:db8::1]/'],
  ])('when r is %j, then it is accepted and the Location is %j', (raw, location) => {
    expect(checkRedirectTarget(raw)).toEqual({ ok: true, location });
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
