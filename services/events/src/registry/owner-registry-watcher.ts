import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/transport-node';
import { decodeOwnerRecord, ownerRegistryBucketOptions } from '@cm/contracts';
import type { Logger, NatsConnection } from '@cm/platform';

/** What the pixel asks on every hit: an in-memory lookup, never a network round trip. */
export interface OwnerLookup {
  isReady(): boolean;
  has(ownerId: string): boolean;
  /** The hosts a click of this owner may redirect to (see OwnerRecord.redirect_hosts); undefined for an unknown owner. */
  redirectHosts(ownerId: string): readonly string[] | undefined;
}

/**
 * Mirrors the owner registry KV bucket (written by management, see @cm/contracts) into a Map.
 * A new watcher first replays every current key, then follows live puts and purges; until the
 * replay is complete the map is not trusted (isReady is false) so no hit is dropped as unknown
 * just because the service started a moment ago.
 */
export class OwnerRegistryWatcher implements OwnerLookup {
  private readonly owners = new Map<string, readonly string[]>();
  private ready = false;
  private stopped = false;
  private watch?: QueuedIterator<KvWatchEntry>;
  private running?: Promise<void>;
  private readonly replayed: Promise<void>;
  private markReplayed!: () => void;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
    private readonly replicas: number,
    private readonly logger: Logger,
  ) {
    this.replayed = new Promise((resolve) => (this.markReplayed = resolve));
  }

  isReady(): boolean {
    return this.ready;
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
  async start(): Promise<void> {
    const kv = await this.openBucket();
    this.running = this.follow(kv);
    await this.replayed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    await this.running;
  }

  private async openBucket(): Promise<KV> {
    const kvm = new Kvm(this.nc);
    const kv = await kvm.open(this.bucket);
    try {
      // open() is lazy: status() is what finds out whether the bucket exists
      await kv.status();
      return kv;
    } catch (err) {
      if (!/not found/i.test(String(err))) throw err;
      // management has not created it yet; same settings as management's, so either side may go first
      return kvm.create(this.bucket, ownerRegistryBucketOptions(this.replicas));
    }
  }

  /** Watches until stopped; a watch that ends on its own (bucket recreated, ...) is reopened. */
  private async follow(kv: KV): Promise<void> {
    while (!this.stopped) {
      try {
        const status = await kv.status();
        // an empty bucket delivers nothing, so there is no last entry to wait for
        if (status.values === 0) this.setReady();
        this.watch = await kv.watch();
        for await (const entry of this.watch) this.apply(entry);
      } catch (err) {
        this.logger.warn('owner registry watch failed; retrying', { error: String(err) });
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  private apply(entry: KvWatchEntry): void {
    if (entry.operation === 'PUT') {
      const record = decodeOwnerRecord(entry.value);
      if (!record) this.logger.warn('owner registry entry ignored: not a valid owner record', { key: entry.key });
      // a tombstone: the owner was deleted (kept so that no older put can bring it back)
      else if (record.deleted) this.owners.delete(record.owner_id);
      else this.owners.set(record.owner_id, record.redirect_hosts);
    } else {
      this.owners.delete(entry.key);
    }
    // delta is the number of messages still to come in the replay: 0 means caught up
    if (!this.ready && (entry.isUpdate || entry.delta === 0)) this.setReady();
  }

  private setReady(): void {
    if (this.ready) return;
    this.ready = true;
    this.markReplayed();
  }
}
