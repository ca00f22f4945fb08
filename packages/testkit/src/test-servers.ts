import { startContainers } from './containers';
import { TEST_STAND_IN_HEAP, startMongoStandIn, startNatsServer } from './local-servers';

export interface TestServers {
  mongoUrl: string;
  natsUrl: string;
  source: 'environment' | 'containers' | 'local';
  stop(): Promise<void>;
}

/**
 * The stores tests run against: MONGO_URL/NATS_URL when set; else containers when a runtime answers;
 * else local nats-server and the MongoDB stand-in.
 */
export async function startTestServers(env: NodeJS.ProcessEnv = process.env): Promise<TestServers> {
  if (env.MONGO_URL && env.NATS_URL) {
    return { mongoUrl: env.MONGO_URL, natsUrl: env.NATS_URL, source: 'environment', stop: async () => {} };
  }
  const containers = await startContainers();
  if (containers) return { ...containers, source: 'containers' };
  const [nats, mongo] = await Promise.all([
    startNatsServer(),
    startMongoStandIn({ heap: process.env.MONGO_STAND_IN_HEAP ?? TEST_STAND_IN_HEAP }),
  ]);
  return {
    mongoUrl: mongo.url,
    natsUrl: nats.url,
    source: 'local',
    async stop() {
      await Promise.all([nats.stop(), mongo.stop()]);
    },
  };
}
