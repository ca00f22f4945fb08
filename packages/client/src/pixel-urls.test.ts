import { ATTRIBUTION_LIMITS, EVENT_LIMITS } from '@cm/contracts';
import { checkRedirectTarget } from '../../../services/events/src/ingest/redirect-target';
import { encodeMetadataKey } from '../../../services/events/src/storage/metadata-key';
import { PIXEL_LIMITS, buildClickUrl, buildPixelUrl } from './pixel-urls';

const BASE = 'https://events.example.com';
const query = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('buildPixelUrl', () => {
  test('when a visitor id is given, then it is the vid parameter (the service keeps only its keyed hash)', () => {
    const url = buildPixelUrl(BASE, { owner_id: '1234', name: 'impression', vid: 'user-42' });
    expect(query(url)).toEqual({ owner_id: '1234', name: 'impression', vid: 'user-42' });
  });

  test('when given the named parameters and metadata, then the query carries each once, metadata flat', () => {
    const url = buildPixelUrl(BASE, {
      owner_id: '1234',
      name: 'impression',
      url: 'https://pub.example/a?b=1',
      content_id: 'article 1',
      metadata: { campaign: 'spring & summer', 'a.b': 'x' },
    });
    expect(url.startsWith(`${BASE}/v1/v.gif?`)).toBe(true);
    expect(query(url)).toEqual({
      owner_id: '1234',
      name: 'impression',
      url: 'https://pub.example/a?b=1',
      content_id: 'article 1',
      campaign: 'spring & summer',
      'a.b': 'x',
    });
  });

  test('when a parameter breaks the pixel limits, then building fails naming it (a browser would lose the 400)', () => {
    const ok = { owner_id: '1234', name: 'impression' };
    expect(() => buildPixelUrl(BASE, { ...ok, owner_id: 'abc' })).toThrow(/owner_id/);
    expect(() => buildPixelUrl(BASE, { ...ok, owner_id: '1'.repeat(33) })).toThrow(/owner_id/);
    expect(() => buildPixelUrl(BASE, { ...ok, name: '' })).toThrow(/name/);
    expect(() => buildPixelUrl(BASE, { ...ok, name: 'n'.repeat(129) })).toThrow(/name/);
    expect(() => buildPixelUrl(BASE, { ...ok, content_id: 'c'.repeat(257) })).toThrow(/content_id/);
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { r: 'https://evil.example' } })).toThrow(
      /named pixel parameter/,
    );
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { owner_id: '1' } })).toThrow(/named pixel parameter/);
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { vid: 'v1' } })).toThrow(/named pixel parameter/);
    expect(() => buildPixelUrl(BASE, { ...ok, vid: '' })).toThrow(/vid/);
    expect(() => buildPixelUrl(BASE, { ...ok, vid: 'v'.repeat(129) })).toThrow(/vid/);
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { k: 'v'.repeat(513) } })).toThrow(/metadata\.k/);
    expect(() =>
      buildPixelUrl(BASE, {
        ...ok,
        metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
      }),
    ).toThrow(/at most 20/);
  });

  test('when url is not an absolute http(s) URL, a utm_* value is over 256 or referrer is metadata, then building fails as the service would refuse it', () => {
    const ok = { owner_id: '1234', name: 'impression' };
    for (const url of ['/guide', 'javascript:alert(1)', 'about:blank', 'news.example/a'])
      expect(() => buildPixelUrl(BASE, { ...ok, url })).toThrow(/url must be an absolute http/);
    expect(query(buildPixelUrl(BASE, { ...ok, url: '' })).url).toBe('');
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { utm_campaign: 'u'.repeat(257) } })).toThrow(
      /metadata\.utm_campaign/,
    );
    expect(
      query(buildPixelUrl(BASE, { ...ok, metadata: { utm_campaign: 'u'.repeat(256), note: 'n'.repeat(512) } })).note,
    ).toHaveLength(512);
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { referrer: 'https://a.example/' } })).toThrow(
      /named pixel parameter/,
    );
    expect(query(buildPixelUrl(BASE, { ...ok, referrer: 'https://www.google.com/search?q=x' })).referrer).toBe(
      'https://www.google.com/search?q=x',
    );
  });

  test('when a metadata key is long only once escaped, then it is refused like the service would', () => {
    const ok = { owner_id: '1234', name: 'impression' };
    const dotted = `${'.'.repeat(21)}x`; // 22 characters, 64 once escaped
    expect(encodeMetadataKey(dotted)).toHaveLength(64);
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { [dotted]: 'v' } })).not.toThrow();
    expect(() => buildPixelUrl(BASE, { ...ok, metadata: { [`$${dotted}`]: 'v' } })).toThrow(/once escaped/);
    for (const key of ['%a', '$x.y', 'plain', '__proto__']) {
      const fits = encodeMetadataKey(key).length <= PIXEL_LIMITS.metadataKeyMax;
      expect(fits).toBe(true);
    }
  });

  test('when compared with the service, then the limits are the same numbers', () => {
    // the visitor hash bound is the service's own (no pixel parameter carries a hash)
    const { visitorBound: _bound, ...pixelLimits } = EVENT_LIMITS;
    expect(PIXEL_LIMITS).toEqual({ ...pixelLimits, utmMax: ATTRIBUTION_LIMITS.utmMax });
  });
});

describe('buildClickUrl', () => {
  test('when the target is an absolute http(s) URL, then it rides in r, encoded', () => {
    const url = buildClickUrl(BASE, { owner_id: '1234', name: 'click' }, 'https://shop.example/offer?x=1&y=2#top');
    expect(query(url)).toEqual({ owner_id: '1234', name: 'click', r: 'https://shop.example/offer?x=1&y=2#top' });
  });

  test.each([
    'javascript:alert(1)',
    'data:text/html,hi',
    '/relative',
    '//evil.example',
    'https:\\\\evil.example',
    'https://user:pw@evil.example',
    'https://a.example/ b',
    'ftp://files.example',
    `https://a.example/${'x'.repeat(2048)}`,
  ])('when the target is %s, then building fails, as the service would refuse it too', (target) => {
    expect(() => buildClickUrl(BASE, { owner_id: '1234', name: 'click' }, target)).toThrow(TypeError);
    expect(checkRedirectTarget(target).ok).toBe(false);
  });
});
