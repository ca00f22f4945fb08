import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { Logger, NatsConnection } from '@cm/platform';

export const SALT_BYTES = 32;
/**
 * A stored salt is its 32 bytes followed by zeros up to this size: more than the 32,000-byte
 * blocks the server gives the bucket (see BUCKET_MAX_BYTES), so every salt is written to a block
 * file of its own and whatever removes it (an erase, the max age, a replica catching up) removes
 * that file, not just an index entry.
 */
const SALT_RECORD_BYTES = 32_768;
/**
 * The server sizes a stream's blocks from its max bytes, at its minimum of 32,000 bytes up to a
 * max bytes of 127,596: room for three salts (a period needs one, a rotation two).
 */
const BUCKET_MAX_BYTES = 127_500;
/** The record plus its subject and headers. */
const MAX_MESSAGE_BYTES = 33_792;
const OPERATION_HEADER = 'KV-Operation';
/** A salt's key: the UTC date its period starts on. */
const SALT_KEY = /^\d{4}-\d{2}-\d{2}$/;

/** One key of the bucket with a message: a salt, or a marker (or anything else) when `salt` is undefined. */
export interface BucketEntry {
  key: string;
  seq: number;
  salt?: Buffer;
}

/** The bucket as read at one moment: every key with a message, newest key first. */
export interface BucketView {
  /** The last sequence of the bucket when it was read: a create conditioned on it fails if anything was written since. */
  last: number;
  entries: BucketEntry[];
}

export type CreateOutcome = { created: true; seq: number } | { created: false };

export interface SaltBucketOptions {
  bucket: string;
  replicas: number;
  maxAgeMs: number;
}

function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** The bucket's stream does not exist (never created, or deleted by an operator to start over). */
export function isBucketMissing(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
}

/**
 * The JetStream KV bucket of visitor salts, one key per period (its start date, so keys sort by
 * period), read and written through the stream API so that every read and condition is the
 * stream leader's. Salts are created only by a write conditioned on the whole bucket being
 * unchanged since it was read, and removed only by erasing (overwriting) every message of a key.
 */
export class SaltBucket {
  private readonly stream: string;
  private readonly prefix: string;
  private jsm?: JetStreamManager;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: SaltBucketOptions,
    private readonly logger: Logger,
  ) {
    this.stream = `KV_${options.bucket}`;
    this.prefix = `$KV.${options.bucket}.`;
  }

  /** Creates the bucket, or brings the settings of an existing one to these (max age, one block per salt). */
  async open(): Promise<void> {
    const { bucket, replicas, maxAgeMs } = this.options;
    const jsm = await this.manager();
    const info = await jsm.streams.info(this.stream).catch((err: unknown) => {
      if (isBucketMissing(err)) return undefined;
      throw err;
    });
    if (info === undefined) {
      await new Kvm(this.nc).create(bucket, {
        history: 1,
        replicas,
        ttl: maxAgeMs,
        max_bytes: BUCKET_MAX_BYTES,
        maxValueSize: MAX_MESSAGE_BYTES,
      });
      return;
    }
    const { config } = info;
    const maxAge = maxAgeMs * 1_000_000;
    if (config.max_age === maxAge && config.max_bytes === BUCKET_MAX_BYTES && config.max_msg_size === MAX_MESSAGE_BYTES)
      return;
    if (config.max_bytes !== BUCKET_MAX_BYTES)
      this.logger.warn(
        'the visitor salt bucket was created by an earlier version: its block file may still hold salts of past periods; delete the bucket once (docs/operations.md, visitor identity)',
        { bucket },
      );
    // a changed period setting changes the max age: a month's salt must not expire after a day
    await jsm.streams.update(this.stream, {
      ...config,
      max_age: maxAge,
      max_bytes: BUCKET_MAX_BYTES,
      max_msg_size: MAX_MESSAGE_BYTES,
    });
  }

  async view(): Promise<BucketView> {
    const jsm = await this.manager();
    // the last sequence first: anything written after it makes a create conditioned on it fail
    const last = (await jsm.streams.getMessage(this.stream, { last_by_subj: `${this.prefix}>` }))?.seq ?? 0;
    const entries: BucketEntry[] = [];
    for (const key of (await this.keys()).sort().reverse()) {
      const m = await jsm.streams.getMessage(this.stream, { last_by_subj: this.prefix + key });
      if (m === null) continue; // erased meanwhile
      const marker = m.header?.get(OPERATION_HEADER);
      // a salt of an earlier version is its 32 bytes alone
      const valid =
        !marker && SALT_KEY.test(key) && (m.data.length === SALT_RECORD_BYTES || m.data.length === SALT_BYTES);
      entries.push({ key, seq: m.seq, salt: valid ? Buffer.from(m.data.subarray(0, SALT_BYTES)) : undefined });
    }
    return { last, entries };
  }

  /** Writes `salt` under `key` unless anything was written to the bucket after `last` (then `created: false`). */
  async create(key: string, salt: Buffer, last: number): Promise<CreateOutcome> {
    const record = Buffer.alloc(SALT_RECORD_BYTES);
    salt.copy(record);
    try {
      const ack = await jetstream(this.nc).publish(this.prefix + key, record, {
        expect: { lastSubjectSequence: last, lastSubjectSequenceSubject: `${this.prefix}>` },
      });
      return { created: true, seq: ack.seq };
    } catch (err) {
      if (isWrongLastSequence(err)) return { created: false };
      throw err;
    }
  }

  /**
   * Erases every message (values and markers) of every key that sorts before `keep`: the server
   * overwrites the bytes on every replica, and removes the salt's block file with it. Returns
   * how many messages were erased; erasing one that another process erased first is no error.
   */
  async retireOlder(keep: string): Promise<number> {
    const jsm = await this.manager();
    let erased = 0;
    for (const key of await this.keys()) {
      if (key >= keep) continue;
      // history is one message per key, but a bucket whose settings were changed by hand may keep more
      for (let m = await this.lastOf(key); m !== null; m = await this.lastOf(key)) {
        try {
          await jsm.streams.deleteMessage(this.stream, m.seq, true);
          erased++;
        } catch (err) {
          if ((await jsm.streams.getMessage(this.stream, { seq: m.seq })) !== null) throw err;
        }
      }
    }
    return erased;
  }

  private async lastOf(key: string) {
    return (await this.manager()).streams.getMessage(this.stream, { last_by_subj: this.prefix + key });
  }

  /** Every key with at least one message (markers included). */
  private async keys(): Promise<string[]> {
    const info = await (await this.manager()).streams.info(this.stream, { subjects_filter: `${this.prefix}>` });
    return Object.keys(info.state.subjects ?? {}).map((s) => s.slice(this.prefix.length));
  }

  private async manager(): Promise<JetStreamManager> {
    this.jsm ??= await jetstreamManager(this.nc);
    return this.jsm;
  }
}
