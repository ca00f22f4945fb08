import type { KvWatchEntry } from '@nats-io/kv';
import { decodeOwnerRecord, ownerRegistryBucketOptions } from '@cm/contracts';
import type { Logger, NatsConnection } from '@cm/platform';
import { KvMirror } from './kv-mirror';

/** What the pixel asks on every hit: an in-memory lookup, never a network round trip. */
export interface OwnerLookup {
  isReady(): boolean;
  has(ownerId: string): boolean;
  /** The hosts a click of this owner may redirect to (see OwnerRecord.redirect_hosts); undefined for an unknown owner. */
  redirectHosts(ownerId: string): readonly string[] | undefined;
}

/**
 * Mirrors the owner registry KV bucket (written by management, see @cm/contracts) into a Map.
 * Until the replay is complete the map is not trusted (isReady is false) so no hit is dropped as
 * unknown just because the service started a moment ago.
 */
export class OwnerRegistryWatcher implements OwnerLookup {
  private readonly owners = new Map<string, readonly string[]>();
  /** Owners the current watch's replay delivered (the rest are swept once it is complete). */
  private seen = new Set<string>();
  private readonly mirror: KvMirror;

  constructor(
    nc: NatsConnection,
    bucket: string,
    replicas: number,
    private readonly logger: Logger,
  ) {
    this.mirror = new KvMirror({
      nc,
      bucket,
      bucketOptions: ownerRegistryBucketOptions(replicas),
      what: 'owner registry',
      logger,
      apply: (entry) => this.apply(entry),
      rewatched: () => (this.seen = new Set()),
      replayed: () => {
        for (const ownerId of this.owners.keys()) if (!this.seen.has(ownerId)) this.owners.delete(ownerId);
      },
    });
  }

  isReady(): boolean {
    return this.mirror.isReady();
  }

  has(ownerId: string): boolean {
    return this.owners.has(ownerId);
  }

  redirectHosts(ownerId: string): readonly string[] | undefined {
    return this.owners.get(ownerId);
  }

  get size(): number {
    return this.owners.size;
  }

  /** Opens (or creates) the bucket and starts following it; resolves when the replay is done. */
  start(): Promise<void> {
    return this.mirror.start();
  }

  stop(): Promise<void> {
    return this.mirror.stop();
  }

  private apply(entry: KvWatchEntry): void {
    if (entry.operation === 'PUT') {
      const record = decodeOwnerRecord(entry.value);
      if (!record) this.logger.warn('owner registry entry ignored: not a valid owner record', { key: entry.key });
      // a tombstone: the owner was deleted (kept so that no older put can bring it back)
      else if (record.deleted) this.owners.delete(record.owner_id);
      else {
        this.owners.set(record.owner_id, record.redirect_hosts);
        this.seen.add(record.owner_id);
      }
    } else {
      this.owners.delete(entry.key);
    }
  }
}
