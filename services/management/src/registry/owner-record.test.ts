import { OWNER_RECORD_LIMITS } from '@cm/contracts';
import { buildOwnerRecord, redirectHostOf, sameOwnerState, type RegistryUser } from './owner-record';

const user: RegistryUser = {
  _id: '111',
  account_id: '100',
  created_at: new Date('2026-01-02T03:04:05.000Z'),
  revision: 7,
  redirect_hosts: ['shop.example', '*.cdn.example'],
};

describe('buildOwnerRecord', () => {
  test('when a user has explicit hosts and content hosts, then the explicit come first, the content hosts sorted, no repeats', () => {
    expect(buildOwnerRecord(user, ['b.example', 'shop.example', 'a.example'])).toEqual({
      owner_id: '111',
      account_id: '100',
      created_at: '2026-01-02T03:04:05.000Z',
      revision: 7,
      redirect_hosts: ['shop.example', '*.cdn.example', 'a.example', 'b.example'],
    });
  });

  test('when the explicit list holds a wildcard over a public suffix (stored before those were refused), then the record leaves it out', () => {
    expect(
      buildOwnerRecord({ ...user, redirect_hosts: ['*.com', 'shop.example', '*.github.io'] }, []).redirect_hosts,
    ).toEqual(['shop.example']);
  });

  test('when a user has no explicit list (a document from before redirect hosts), then only the content hosts count', () => {
    expect(buildOwnerRecord({ ...user, redirect_hosts: undefined }, ['a.example']).redirect_hosts).toEqual([
      'a.example',
    ]);
  });

  test('when the user is deleted, then the record is a tombstone without hosts at the user revision', () => {
    expect(buildOwnerRecord({ ...user, deleted_at: new Date() }, ['a.example'])).toEqual({
      owner_id: '111',
      account_id: '100',
      created_at: '2026-01-02T03:04:05.000Z',
      revision: 7,
      redirect_hosts: [],
      deleted: true,
    });
  });

  test('when there are more hosts than a record may hold, then it is cut at the contract limit, explicit hosts kept', () => {
    const many = Array.from(
      { length: OWNER_RECORD_LIMITS.redirectHosts + 10 },
      (_, i) => `h${String(i).padStart(5, '0')}.example`,
    );
    const record = buildOwnerRecord(user, many);
    expect(record.redirect_hosts).toHaveLength(OWNER_RECORD_LIMITS.redirectHosts);
    expect(record.redirect_hosts.slice(0, 2)).toEqual(['shop.example', '*.cdn.example']);
  });
});

describe('sameOwnerState', () => {
  const base = buildOwnerRecord(user, ['a.example']);
  test.each([
    ['only the revision differs', { revision: 99 }, true],
    ['the hosts are in another order', { redirect_hosts: [...base.redirect_hosts].reverse() }, true],
    ['a host differs', { redirect_hosts: ['shop.example'] }, false],
    ['one is a tombstone', { deleted: true }, false],
    ['the account differs', { account_id: '101' }, false],
    ['created_at differs', { created_at: 'x' }, false],
  ])('when %s, then same is %s', (_name, change, same) => {
    expect(sameOwnerState(base, { ...base, ...change })).toBe(same);
  });
});

describe('redirectHostOf', () => {
  test.each([
    ['https://Example.COM:8443/path?q=1', 'example.com'],
    ['http://bücher.example/', 'xn--bcher-kva.example'],
    ['https://example.com./a', 'example.com'],
    ['https://192.0.2.10/a', '192.0.2.10'],
    ['https://[2001:db8::1]/a', ''],
    ['not a url', ''],
  ])('when the content URL is %s, then the host is %j', (url, host) => {
    expect(redirectHostOf(url)).toBe(host);
  });
});
