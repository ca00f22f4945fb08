import type { OwnerRecord } from '@cm/contracts';
import type { RegistryEntry } from './registry-kv';
import { planOrphanKey, planUserCorrection } from './reconcile-plan';

const desired: OwnerRecord = {
  owner_id: '1',
  account_id: '1',
  created_at: '2026-01-01T00:00:00.000Z',
  revision: 5,
  redirect_hosts: ['a.example'],
};
const entry = (record: OwnerRecord | undefined, writtenDaysAgo = 0): RegistryEntry<OwnerRecord> => ({
  key: '1',
  sequence: 42,
  written: new Date(Date.parse('2026-06-30T00:00:00Z') - writtenDaysAgo * 86_400_000),
  record,
});
const NOW = new Date('2026-06-30T00:00:00Z');
const TTL = 30 * 86_400_000;

describe('planUserCorrection', () => {
  test.each([
    ['no key', undefined, { action: 'write', kind: 'missing' }],
    ['a value that is no record', entry(undefined), { action: 'write', kind: 'invalid' }],
    ['a lower revision', entry({ ...desired, revision: 4 }), { action: 'write', kind: 'outdated' }],
    ['a lower revision with the same hosts', entry({ ...desired, revision: 0 }), { action: 'write', kind: 'outdated' }],
    ['the same revision and state', entry(desired), { action: 'none' }],
    ['a higher revision and the same state', entry({ ...desired, revision: 9 }), { action: 'none' }],
    [
      'the same revision, other hosts',
      entry({ ...desired, redirect_hosts: [] }),
      { action: 'bump', kind: 'diverged', past: 5 },
    ],
    [
      'a higher revision, a tombstone of a live user',
      entry({ ...desired, revision: 8, deleted: true, redirect_hosts: [] }),
      { action: 'bump', kind: 'diverged', past: 8 },
    ],
  ])('when the bucket holds %s, then %j', (_name, current, correction) => {
    expect(planUserCorrection(desired, current)).toEqual(correction);
  });

  test('when the user is deleted and the bucket still has it live at a lower revision, then the tombstone is written', () => {
    expect(
      planUserCorrection({ ...desired, redirect_hosts: [], deleted: true }, entry({ ...desired, revision: 4 })),
    ).toEqual({ action: 'write', kind: 'outdated' });
  });
});

describe('planOrphanKey', () => {
  test('when a live record has no user, then a tombstone one revision higher replaces it', () => {
    expect(planOrphanKey(entry(desired), NOW, TTL)).toEqual({
      action: 'tombstone',
      kind: 'stale',
      record: { ...desired, revision: 6, redirect_hosts: [], deleted: true },
    });
  });

  test.each([
    ['a value that is no record', entry(undefined), { action: 'purge', kind: 'invalid' }],
    ['a tombstone younger than the TTL', entry({ ...desired, deleted: true }, 29), { action: 'none' }],
    [
      'a tombstone older than the TTL',
      entry({ ...desired, deleted: true }, 31),
      { action: 'purge', kind: 'expired_tombstone' },
    ],
  ])('when the key holds %s, then %j', (_name, current, correction) => {
    expect(planOrphanKey(current, NOW, TTL)).toEqual(correction);
  });
});
