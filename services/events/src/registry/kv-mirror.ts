import { Kvm, type KV, type KvOptions, type KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/transport-node';
import type { Logger, NatsConnection } from '@cm/platform';

export interface KvMirrorDeps {
  nc: NatsConnection;
  bucket: string;
  /** The settings management creates the bucket with, so either service may start first. */
  bucketOptions: Partial<KvOptions>;
  /** Names the bucket in logs ("owner registry"). */
  what: string;
  logger: Logger;
  /** One entry of the replay or a live update, in stream order. */
  apply(entry: KvWatchEntry): void;
  /** A watch is (re)opened: its replay delivers every current key again. */
  rewatched?(): void;
  /** That replay is complete: what it did not deliver is no longer in the bucket (the bucket may have been lost and rebuilt). */
  replayed?(): void;
}

/**
 * Follows a KV bucket written by management: a new watch first replays every current key, then
 * live puts and purges. Until the first replay is complete the mirror is not ready, so nothing is
 * decided from a half-loaded state just because the service started a moment ago. A watch that
 * ends on its own (bucket recreated, connection trouble) is reopened.
 */
export class KvMirror {
  private ready = false;
  private stopped = false;
  private watch?: QueuedIterator<KvWatchEntry>;
  private running?: Promise<void>;
  private readonly replayed: Promise<void>;
  private markReplayed!: () => void;

  constructor(private readonly deps: KvMirrorDeps) {
    this.replayed = new Promise((resolve) => (this.markReplayed = resolve));
  }

  isReady(): boolean {
    return this.ready;
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
    const kvm = new Kvm(this.deps.nc);
    const kv = await kvm.open(this.deps.bucket);
    try {
      // open() is lazy: status() is what finds out whether the bucket exists
      await kv.status();
      return kv;
    } catch (err) {
      if (!/not found/i.test(String(err))) throw err;
      // management has not created it yet; same settings as management's, so either side may go first
      return kvm.create(this.deps.bucket, this.deps.bucketOptions);
    }
  }

  /** Watches until stopped; a watch that ends on its own is reopened (on the bucket created again if it was lost). */
  private async follow(first: KV): Promise<void> {
    for (let kv: KV | undefined = first; !this.stopped; kv = undefined) {
      try {
        kv ??= await this.openBucket();
        const status = await kv.status();
        this.deps.rewatched?.();
        let replaying = true;
        const caughtUp = () => {
          if (!replaying) return;
          replaying = false;
          this.deps.replayed?.();
          this.setReady();
        };
        // an empty bucket delivers nothing, so there is no last entry to wait for
        if (status.values === 0) caughtUp();
        this.watch = await kv.watch();
        for await (const entry of this.watch) {
          this.deps.apply(entry);
          // delta is the number of messages still to come in the replay: 0 means caught up
          if (entry.isUpdate || entry.delta === 0) caughtUp();
        }
      } catch (err) {
        this.deps.logger.warn(`${this.deps.what} watch failed; retrying`, { error: String(err) });
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  private setReady(): void {
    if (this.ready) return;
    this.ready = true;
    this.markReplayed();
  }
}
