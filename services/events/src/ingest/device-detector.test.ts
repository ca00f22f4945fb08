import { DeviceDetector, classifyUserAgent } from './device-detector';

const UA = {
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1',
  androidTablet:
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  smartTv:
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0 TV Safari/537.36',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  curl: 'curl/8.5.0',
};

describe('device detection', () => {
  test.each([
    [UA.chrome, 'desktop', false],
    [UA.iphone, 'mobile', false],
    [UA.android, 'mobile', false],
    [UA.ipad, 'tablet', false],
    [UA.androidTablet, 'tablet', false],
    [UA.smartTv, 'desktop', false],
    [UA.googlebot, 'desktop', true],
    [UA.curl, 'desktop', true],
    ['', 'desktop', false],
    ['SomeScript/1.0', 'desktop', true],
  ])('when the User-Agent is %j, then it is %s with bot=%s', (ua, device_type, bot) => {
    expect(classifyUserAgent(ua)).toEqual({ device_type, bot });
  });

  test('when the cache is full, then the oldest agent is evicted and answers stay correct', () => {
    const detector = new DeviceDetector(2);
    expect(detector.detect(UA.chrome).device_type).toBe('desktop');
    expect(detector.detect(UA.iphone).device_type).toBe('mobile');
    expect(detector.detect(UA.ipad).device_type).toBe('tablet');
    expect(detector.detect(UA.chrome).device_type).toBe('desktop');
    expect(detector.detect(undefined)).toEqual({ device_type: 'desktop', bot: false });
  });
});
