import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry, type KvOptions } from '@nats-io/kv';
import type { NatsConnection } from '@cm/platform';

/** What the bucket holds for one key, and how a record is written there. */
export interface RegistryCodec<S extends { revision: number }, R extends { revision: number } = S> {
  key(record: R): string;
  encode(record: R): Uint8Array;
  /** Never throws: undefined for a value that is no record. */
  decode(data: Uint8Array): S | undefined;
}

/** One live key of the bucket as read by `entries()`. */
export interface RegistryEntry<S> {
  key: string;
  /** The KV revision (stream sequence) of the value: what a conditional purge names. */
  sequence: number;
  /** When the value was written (a tombstone's age). */
  written: Date;
  /** undefined when the value is not a valid record. */
  record?: S;
}

export type WriteOutcome = 'written' | 'skipped';

/** Attempts of one compare-and-set write before giving up (each lost race means a newer writer). */
const CAS_ATTEMPTS = 5;
/** How long `entries()` reads the bucket at most. */
const SNAPSHOT_TIMEOUT_MS = 30_000;

/**
 * The bucket's stream is gone (deleted by an operator, lost with its storage): requests find no
 * stream, publishes no responder. The bucket is then created again on the next attempt.
 */
function isBucketGone(err: unknown): boolean {
  return /stream not found|no responders|jetstream is not enabled/i.test(String(err));
}

function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Management's write side of a registry bucket (a JetStream KV bucket; see @cm/contracts). Every
 * write is compare-and-set on the record's `revision`: a record never replaces one of an equal or
 * higher revision, so a delayed or replayed write cannot bring back an older state, and a
 * tombstone is never overwritten by earlier puts. `S` is what a key holds, `R` what is written.
 */
export class RegistryKv<S extends { revision: number }, R extends { revision: number } = S> {
  private kv?: KV;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket: string,
    private readonly options: Partial<KvOptions>,
    private readonly codec: RegistryCodec<S, R>,
    private readonly what: string,
  ) {}

  private async open(): Promise<KV> {
    // create() is idempotent for an existing bucket with the same settings
    this.kv ??= await new Kvm(this.nc).create(this.bucket, this.options);
    return this.kv;
  }

  /** Runs `op` on the bucket; if the bucket turns out to be gone, creates it again and runs `op` once more. */
  private async withBucket<T>(op: (kv: KV) => Promise<T>): Promise<T> {
    try {
      return await op(await this.open());
    } catch (err) {
      if (!isBucketGone(err)) throw err;
      this.kv = undefined;
      return op(await this.open());
    }
  }

  /** Writes `record` unless the bucket already holds one of an equal or higher revision under its key. */
  async write(record: R): Promise<WriteOutcome> {
    return (await this.writeOver(record)).outcome;
  }

  /**
   * The same; `prepare` runs once, only when the record is about to be written (what must be in
   * the bucket before it). Answers what the key held when the write succeeded (or was skipped).
   */
  writeOver(record: R, prepare?: () => Promise<void>): Promise<{ outcome: WriteOutcome; stored?: S }> {
    return this.withBucket((kv) => this.writeTo(kv, record, prepare));
  }

  private async writeTo(
    kv: KV,
    record: R,
    prepare?: () => Promise<void>,
  ): Promise<{ outcome: WriteOutcome; stored?: S }> {
    const key = this.codec.key(record);
    const value = this.codec.encode(record);
    let prepared = false;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await kv.get(key);
      const stored = current?.operation === 'PUT' ? this.codec.decode(current.value) : undefined;
      if (stored && stored.revision >= record.revision) return { outcome: 'skipped', stored };
      if (!prepared) await prepare?.();
      prepared = true;
      try {
        // a deleted or purged key keeps a marker with a sequence: update against it like a value
        if (current) await kv.update(key, value, current.revision);
        else await kv.create(key, value);
        return { outcome: 'written', stored };
      } catch (err) {
        // another writer came in between (or the key appeared): read again and decide again
        if (!isWrongLastSequence(err)) throw err;
      }
    }
    throw new Error(`${this.what} write for ${key} lost ${CAS_ATTEMPTS} races in a row`);
  }

  /** Writes a value whatever the key holds: for values that are the same whoever writes them. */
  async put(key: string, value: Uint8Array): Promise<void> {
    await this.withBucket((kv) => kv.put(key, value));
  }

  /** Removes a key, only if it still holds the value read at `sequence`. */
  async purge(key: string, sequence: number): Promise<boolean> {
    try {
      await this.withBucket((kv) => kv.purge(key, { previousSeq: sequence }));
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }

  /**
   * Removes every message of the keys matching `filter` from the bucket's stream, leaving no
   * marker: for keys no reader needs to see go (a watcher is not told).
   */
  async purgeQuietly(filter: string): Promise<void> {
    const stream = (await this.withBucket((kv) => kv.status())).streamInfo.config.name;
    const jsm = await jetstreamManager(this.nc, { checkAPI: false });
    await jsm.streams.purge(stream, { filter: `$KV.${this.bucket}.${filter}` });
  }

  /** The keys matching `filter` that hold a value. */
  async keys(filter: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of await this.withBucket((kv) => kv.keys(filter))) keys.push(key);
    return keys;
  }

  /**
   * Every key (matching `filter`) that currently holds a value (deleted and purged keys left out).
   * The bucket keeps one value per key, so its history is its current state; reading it ends by
   * itself, also when no key matches. Should the server go quiet mid-read, the snapshot is short
   * of some keys: harmless to reconciliation, which only writes compare-and-set and checks the
   * missing keys on its next pass.
   */
  async entries(filter = '>'): Promise<Map<string, RegistryEntry<S>>> {
    const entries = new Map<string, RegistryEntry<S>>();
    const history = await this.withBucket((kv) => kv.history({ key: filter }));
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      history.stop();
    }, SNAPSHOT_TIMEOUT_MS);
    try {
      for await (const entry of history) {
        if (entry.operation === 'PUT') entries.set(entry.key, this.toEntry(entry));
        else entries.delete(entry.key);
      }
    } finally {
      clearTimeout(timer);
      history.stop();
    }
    if (late) throw new Error(`${this.what} snapshot did not complete within ${SNAPSHOT_TIMEOUT_MS} ms`);
    return entries;
  }

  private toEntry(entry: KvEntry): RegistryEntry<S> {
    return { key: entry.key, sequence: entry.revision, written: entry.created, record: this.codec.decode(entry.value) };
  }
}
