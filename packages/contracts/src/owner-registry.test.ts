import {
  decodeOwnerRecord,
  encodeOwnerRecord,
  isRedirectHostAllowed,
  ownerRegistryBucketOptions,
  REDIRECT_HOST_PATTERN,
} from './owner-registry';

const enc = new TextEncoder();

describe('owner registry contract', () => {
  test('when a record is encoded and decoded, then it comes back unchanged', () => {
    const record = {
      owner_id: '123456789012345',
      account_id: '123456789012345',
      created_at: '2026-11-22T00:00:00.000Z',
      revision: 7,
      redirect_hosts: ['example.com', '*.news.example'],
    };
    expect(decodeOwnerRecord(encodeOwnerRecord(record))).toEqual(record);
    expect(decodeOwnerRecord(encodeOwnerRecord({ ...record, deleted: true }))).toEqual({ ...record, deleted: true });
  });

  test('when a record written before revisions and redirect hosts is read, then it gets revision 0 and no hosts', () => {
    expect(decodeOwnerRecord(enc.encode('{"owner_id":"12","account_id":"12","created_at":"x"}'))).toEqual({
      owner_id: '12',
      account_id: '12',
      created_at: 'x',
      revision: 0,
      redirect_hosts: [],
    });
  });

  test('when redirect hosts hold invalid entries, then only the valid host patterns are kept', () => {
    const value = {
      owner_id: '1',
      redirect_hosts: ['ok.example', 'UPPER.example', 'http://x', '*.wild.example', 'a..b', 42, '*.', ''],
      revision: -1,
      deleted: 'yes',
    };
    expect(decodeOwnerRecord(enc.encode(JSON.stringify(value)))).toMatchObject({
      redirect_hosts: ['ok.example', '*.wild.example'],
      revision: 0,
    });
    expect(decodeOwnerRecord(enc.encode(JSON.stringify(value)))?.deleted).toBeUndefined();
  });

  test('when a value is not a record with a digit owner id, then it decodes to undefined', () => {
    expect(decodeOwnerRecord(enc.encode('not json'))).toBeUndefined();
    expect(decodeOwnerRecord(enc.encode('{"owner_id":"abc"}'))).toBeUndefined();
    expect(decodeOwnerRecord(enc.encode('{"owner_id":{"$gt":""}}'))).toBeUndefined();
  });

  test.each([
    [['example.com'], 'example.com', true],
    [['example.com'], 'example.com.', true],
    [['example.com'], 'www.example.com', false],
    [['example.com'], 'evilexample.com', false],
    [['*.example.com'], 'www.example.com', true],
    [['*.example.com'], 'a.b.example.com', true],
    [['*.example.com'], 'example.com', false],
    [['*.example.com'], 'evil-example.com', false],
    [['*.example.com'], 'example.com.evil.net', false],
    [[], 'example.com', false],
    // a wildcard over a public suffix (stored before such entries were refused) matches nothing
    [['*.com'], 'evil.com', false],
    [['*.co.uk'], 'evil.co.uk', false],
    [['*.github.io'], 'evil.github.io', false],
    [['*.com', 'shop.example.com'], 'shop.example.com', true],
  ])('when the hosts are %j and the target host is %s, then allowed is %s', (hosts, host, allowed) => {
    expect(isRedirectHostAllowed(hosts, host)).toBe(allowed);
  });

  test('when host patterns are checked, then only lowercase hostnames with an optional *. prefix pass', () => {
    for (const ok of ['example.com', 'xn--bcher-kva.example', '*.example.com', 'localhost', 'a-b.c'])
      expect(REDIRECT_HOST_PATTERN.test(ok)).toBe(true);
    for (const bad of [
      'Example.com',
      'example.com:80',
      '-a.com',
      'a-.com',
      '*.*.a.com',
      '*example.com',
      'a b.com',
      'a/b',
      `${'a'.repeat(64)}.com`,
    ])
      expect(REDIRECT_HOST_PATTERN.test(bad)).toBe(false);
  });

  test('when either service creates the bucket, then it keeps one value per key with the replicas asked for', () => {
    expect(ownerRegistryBucketOptions(3)).toEqual({ history: 1, replicas: 3 });
  });
});
