import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@cm/platform';
import { VisitorSalts } from '../../src/ingest/visitor-salts';

/** The first 32 bytes of a stored value: the salt (what follows is padding). */
const SALT_BYTES = 32;

/**
 * Every key of a salt bucket that holds any message, with what its last message is: the salt (hex)
 * or the KV operation of a marker (`PURGE`, `DEL`). Read through the stream API (the leader), so it
 * sees markers and values alike.
 */
export async function saltBucketContents(nc: NatsConnection, bucket: string): Promise<Record<string, string>> {
  const jsm = await jetstreamManager(nc);
  const stream = `KV_${bucket}`;
  const prefix = `$KV.${bucket}.`;
  const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}>` });
  const out: Record<string, string> = {};
  for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
    const m = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (m === null) continue;
    const op = m.header?.get('KV-Operation');
    out[subject.slice(prefix.length)] = op ? op : Buffer.from(m.data.subarray(0, SALT_BYTES)).toString('hex');
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** Which of `needles` (by index) occur as raw bytes in which files under `dir` (a JetStream store directory). */
export function filesHolding(dir: string, needles: Buffer[]): { needle: number; file: string }[] {
  const hits: { needle: number; file: string }[] = [];
  for (const file of filesUnder(dir)) {
    let content: Buffer;
    try {
      content = readFileSync(file);
    } catch {
      continue; // removed while we listed: the server is compacting
    }
    needles.forEach((n, needle) => {
      if (content.includes(n)) hits.push({ needle, file: path.relative(dir, file) });
    });
  }
  return hits;
}

const DAY = 86_400_000;
/** The first day of `rotateDaily`. */
export const FIRST_DAY = Date.parse('2026-03-01T00:00:00Z');

/** The salt, asked again while a cluster elects a leader (a pixel hit would be answered 503 and the next one ask again). */
async function ask(salts: VisitorSalts): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await salts.current()).export();
    } catch (err) {
      if (attempt === 60) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * `days` daily rotations from FIRST_DAY by two processes (each with its own connection) whose
 * clocks are 2 s apart, each asking once just after its own midnight; `between` runs before each
 * day. Returns the salts in order (the last one current); throws if the two ever disagree.
 */
export async function rotateDaily(
  opts: { url: string; bucket: string; replicas: number; days: number; logger: Logger },
  between?: (day: number) => Promise<void>,
): Promise<Buffer[]> {
  const clock = { t: FIRST_DAY };
  const options = { servers: opts.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 };
  const connections = [await connect(options), await connect(options)];
  try {
    const [ahead, behind] = connections.map(
      (nc, i) =>
        new VisitorSalts(
          nc,
          { bucket: opts.bucket, replicas: opts.replicas, period: 'day', now: () => clock.t + (i === 0 ? 2_000 : 0) },
          opts.logger,
        ),
    );
    const salts: Buffer[] = [];
    for (let day = 0; day < opts.days; day++) {
      await between?.(day);
      clock.t = FIRST_DAY + day * DAY - 1_000;
      const fresh = await ask(ahead!);
      clock.t += 1_500;
      if (!(await ask(behind!)).equals(fresh)) throw new Error(`two salts on day ${day}`);
      salts.push(fresh);
    }
    return salts;
  } finally {
    for (const nc of connections) await nc.close();
  }
}

/** Polls `condition` once a second (reading store files is not free) until it holds; throws `failure()` after `timeoutMs`. */
export async function pollUntil(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  failure: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
