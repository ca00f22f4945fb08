import type { TestServers } from './packages/testkit/src';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __TEST_SERVERS__?: TestServers }).__TEST_SERVERS__?.stop();
}
