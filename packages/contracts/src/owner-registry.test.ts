import { decodeOwnerRecord, encodeOwnerRecord, ownerRegistryBucketOptions } from './owner-registry';

describe('owner registry contract', () => {
  test('when a record is encoded and decoded, then it comes back unchanged', () => {
    const record = { owner_id: '123456789012345', account_id: '123456789012345', created_at: '2026-11-22T00:00:00.000Z' };
    expect(decodeOwnerRecord(encodeOwnerRecord(record))).toEqual(record);
  });

  test('when a value is not a record with a digit owner id, then it decodes to undefined', () => {
    const enc = new TextEncoder();
    expect(decodeOwnerRecord(enc.encode('not json'))).toBeUndefined();
    expect(decodeOwnerRecord(enc.encode('{"owner_id":"abc"}'))).toBeUndefined();
    expect(decodeOwnerRecord(enc.encode('{"owner_id":{"$gt":""}}'))).toBeUndefined();
  });

  test('when either service creates the bucket, then it keeps one value per key with the replicas asked for', () => {
    expect(ownerRegistryBucketOptions(3)).toEqual({ history: 1, replicas: 3 });
  });
});
