/**
 * The registry of valid owner_ids, shared between the services over NATS only.
 * Management writes it (put on user created, delete on user deleted); the events service
 * watches it and keeps the set in memory. It is a JetStream KV bucket, so it survives restarts
 * and a new watcher replays the current state before live updates.
 */
export const OWNER_REGISTRY_BUCKET = 'owner_registry';

export interface OwnerRecord {
  /** The user's unique_id (digits), which is the owner_id of the Events API. */
  owner_id: string;
  /** Owner account the user belongs to (its own id for an account owner). */
  account_id: string;
  created_at: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeOwnerRecord(record: OwnerRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

export function decodeOwnerRecord(data: Uint8Array): OwnerRecord | undefined {
  try {
    const value = JSON.parse(decoder.decode(data)) as Partial<OwnerRecord>;
    if (typeof value.owner_id !== 'string' || !/^\d{1,32}$/.test(value.owner_id)) return undefined;
    return { owner_id: value.owner_id, account_id: String(value.account_id ?? ''), created_at: String(value.created_at ?? '') };
  } catch {
    return undefined;
  }
}

/**
 * Settings the bucket is created with, by whichever service starts first (an existing bucket is
 * opened as it is). One value per key is enough: the registry holds current state, not history.
 */
export function ownerRegistryBucketOptions(replicas: number): { history: number; replicas: number } {
  return { history: 1, replicas };
}

/** KV keys are the owner ids themselves: digits are valid KV key tokens. */
export function ownerKey(ownerId: string): string {
  return ownerId;
}
