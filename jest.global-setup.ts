import { startTestServers } from './packages/testkit/src';

/** Starts (or finds) NATS and MongoDB once for the whole integration run; workers inherit the URLs. */
export default async function globalSetup(): Promise<void> {
  const servers = await startTestServers();
  process.env.MONGO_URL = servers.mongoUrl;
  process.env.NATS_URL = servers.natsUrl;
  process.env.TEST_SERVERS_SOURCE = servers.source;
  (globalThis as { __TEST_SERVERS__?: typeof servers }).__TEST_SERVERS__ = servers;
  console.log(`\nintegration tests use ${servers.source} servers: mongo ${servers.mongoUrl}, nats ${servers.natsUrl}`);
}
