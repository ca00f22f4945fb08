import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@cm/platform';
import { encodeOwnerRecord, ownerKey, ownerRegistryBucketOptions, type OwnerRecord } from '@cm/contracts';

/** Management's write side of the owner registry (a JetStream KV bucket; see @cm/contracts). */
export class OwnerRegistryKv {
  private kv?: KV;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
    private readonly replicas: number,
  ) {}

  private async open(): Promise<KV> {
    // create() is idempotent for an existing bucket with the same settings
    this.kv ??= await new Kvm(this.nc).create(this.bucket, ownerRegistryBucketOptions(this.replicas));
    return this.kv;
  }

  async put(record: OwnerRecord): Promise<void> {
    const kv = await this.open();
    await kv.put(ownerKey(record.owner_id), encodeOwnerRecord(record));
  }

  async remove(ownerId: string): Promise<void> {
    const kv = await this.open();
    await kv.purge(ownerKey(ownerId));
  }
}
