import { bucketDay, bucketName } from './bucket-naming';

describe('day buckets', () => {
  test('when an instant is named, then the UTC day decides the bucket', () => {
    expect(bucketName('events', new Date('2026-11-22T23:59:59.999Z'))).toBe('events_20261122');
    expect(bucketName('events', new Date('2026-11-23T00:00:00.000Z'))).toBe('events_20261123');
  });

  test.each([
    ['events_20261122', '2026-11-22T00:00:00.000Z'],
    ['events_20240229', '2024-02-29T00:00:00.000Z'],
  ])('when %s is read back, then its day is %s', (name, day) => {
    expect(bucketDay('events', name)?.toISOString()).toBe(day);
  });

  test.each([
    ['events_20261399'],
    ['events_20230229'],
    ['events_2026112'],
    ['events_x_20261122'],
    ['other_20261122'],
    ['events_20261122_old'],
    ['api_keys'],
  ])('when %s is not exactly a bucket name of the prefix, then it is not a bucket', (name) => {
    expect(bucketDay('events', name)).toBeUndefined();
  });
});
