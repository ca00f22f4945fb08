import { existsSync } from 'node:fs';
import { natsServerVersion } from './nats-server-binary';

export interface ContainerServers {
  mongoUrl: string;
  natsUrl: string;
  stop(): Promise<void>;
}

/** A container runtime is only tried when one is plausibly there; probing costs seconds otherwise. */
function runtimeLikely(): boolean {
  return (
    Boolean(process.env.DOCKER_HOST) ||
    existsSync('/var/run/docker.sock') ||
    existsSync(`${process.env.HOME ?? ''}/.docker/run/docker.sock`)
  );
}

/** MongoDB 7 and NATS with JetStream in containers, when a container runtime answers. */
export async function startContainers(): Promise<ContainerServers | undefined> {
  if (!runtimeLikely()) return undefined;
  const tc = await import('testcontainers');
  try {
    await tc.getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const mongo = await new tc.GenericContainer('mongo:7')
    .withExposedPorts(27017)
    .withWaitStrategy(tc.Wait.forListeningPorts())
    .start();
  const nats = await new tc.GenericContainer(`nats:${natsServerVersion()}`)
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(tc.Wait.forListeningPorts())
    .start();
  return {
    mongoUrl: `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`,
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    async stop() {
      await Promise.all([mongo.stop(), nats.stop()]);
    },
  };
}
