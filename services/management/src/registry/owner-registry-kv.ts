import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@cm/platform';
import {
  decodeOwnerRecord,
  encodeOwnerRecord,
  ownerKey,
  ownerRegistryBucketOptions,
  type OwnerRecord,
} from '@cm/contracts';

/** One live key of the bucket as read by `entries()`. */
export interface RegistryEntry {
  key: string;
  /** The KV revision (stream sequence) of the value: what a conditional purge names. */
  sequence: number;
  /** When the value was written (a tombstone's age). */
  written: Date;
  /** undefined when the value is not a valid owner record. */
  record?: OwnerRecord;
}

export type WriteOutcome = 'written' | 'skipped';

/** Attempts of one compare-and-set write before giving up (each lost race means a newer writer). */
const CAS_ATTEMPTS = 5;
/** How long `entries()` waits for the bucket's replay before failing. */
const SNAPSHOT_TIMEOUT_MS = 30_000;

function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Management's write side of the owner registry (a JetStream KV bucket; see @cm/contracts). Every
 * write is compare-and-set on the record's `revision`: a record never replaces one of an equal or
 * higher revision, so a delayed or replayed write cannot bring back an older state, and a
 * tombstone (a deleted owner) is never overwritten by the owner's earlier puts.
 */
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

  /** Writes `record` unless the bucket already holds a record of this owner with an equal or higher revision. */
  async write(record: OwnerRecord): Promise<WriteOutcome> {
    const kv = await this.open();
    const key = ownerKey(record.owner_id);
    const value = encodeOwnerRecord(record);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await kv.get(key);
      const stored = current?.operation === 'PUT' ? decodeOwnerRecord(current.value) : undefined;
      if (stored && stored.revision >= record.revision) return 'skipped';
      try {
        // a deleted or purged key keeps a marker with a sequence: update against it like a value
        if (current) await kv.update(key, value, current.revision);
        else await kv.create(key, value);
        return 'written';
      } catch (err) {
        // another writer came in between (or the key appeared): read again and decide again
        if (!isWrongLastSequence(err)) throw err;
      }
    }
    throw new Error(`owner registry write for ${record.owner_id} lost ${CAS_ATTEMPTS} races in a row`);
  }

  /** Removes a key, only if it still holds the value read at `sequence`. */
  async purge(key: string, sequence: number): Promise<boolean> {
    const kv = await this.open();
    try {
      await kv.purge(key, { previousSeq: sequence });
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }

  /** Every key that currently holds a value (deleted and purged keys left out). */
  async entries(): Promise<Map<string, RegistryEntry>> {
    const kv = await this.open();
    const entries = new Map<string, RegistryEntry>();
    if ((await kv.status()).values === 0) return entries;
    const watch = await kv.watch();
    const timer = setTimeout(() => watch.stop(), SNAPSHOT_TIMEOUT_MS);
    let complete = false;
    try {
      for await (const entry of watch) {
        if (entry.operation === 'PUT') entries.set(entry.key, toRegistryEntry(entry));
        else entries.delete(entry.key);
        // delta counts the values still to come in the replay: 0 means this was the last one
        if (entry.isUpdate || entry.delta === 0) {
          complete = true;
          break;
        }
      }
    } finally {
      clearTimeout(timer);
      watch.stop();
    }
    if (!complete) throw new Error(`owner registry snapshot did not complete within ${SNAPSHOT_TIMEOUT_MS} ms`);
    return entries;
  }
}

function toRegistryEntry(entry: KvEntry): RegistryEntry {
  return { key: entry.key, sequence: entry.revision, written: entry.created, record: decodeOwnerRecord(entry.value) };
}
