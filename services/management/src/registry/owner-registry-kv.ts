import {
  decodeOwnerRecord,
  encodeOwnerRecord,
  ownerKey,
  ownerRegistryBucketOptions,
  type OwnerRecord,
} from '@cm/contracts';
import type { NatsConnection } from '@cm/platform';
import { RegistryKv } from './registry-kv';

/** The owner registry bucket: one owner record per user, written compare-and-set on its revision. */
export class OwnerRegistryKv extends RegistryKv<OwnerRecord> {
  constructor(nc: NatsConnection, bucket: string, replicas: number) {
    super(
      nc,
      bucket,
      ownerRegistryBucketOptions(replicas),
      { key: (record) => ownerKey(record.owner_id), encode: encodeOwnerRecord, decode: decodeOwnerRecord },
      'owner registry',
    );
  }
}
