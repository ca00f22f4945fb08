import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StorageType, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureNatsServer } from './nats-server-binary';
import { freePort, waitForPort } from './ports';

interface ClusterNode {
  /** Server name, as JetStream reports leaders and peers: n1, n2, n3. */
  name: string;
  port: number;
  clusterPort: number;
  url: string;
  storeDir: string;
  process?: ChildProcess;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every node's client URL, comma separated (the services' NATS_URL). */
  url: string;
  node(name: string): ClusterNode;
  /** Sends the signal (SIGKILL by default: a crash) and waits until the process is gone. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed node again with the same ports and store directory. */
  restart(name: string): Promise<void>;
  /** The server currently leading the stream (`$JS.API.STREAM.INFO`). */
  streamLeader(stream: string): Promise<string>;
  /** The stream's replicas that are current (caught up), leader included. */
  currentReplicas(stream: string): Promise<string[]>;
  /** A durable consumer's progress: delivered, acknowledged, pending and its cluster state. */
  consumerState(stream: string, durable: string): Promise<Record<string, unknown>>;
  /** Resolves once JetStream can place a stream on every node (a meta leader elected, every peer joined). */
  waitForJetStream(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface NatsClusterOptions {
  size?: number;
  /** Wait for the JetStream meta leader before resolving (default true). */
  waitForJetStream?: boolean;
  quiet?: boolean;
}

function configOf(node: ClusterNode, all: ClusterNode[]): string {
  const routes = all.filter((n) => n !== node).map((n) => `nats-route://127.0.0.1:${n.clusterPort}`);
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.port}`,
    `jetstream { store_dir: "${node.storeDir}" }`,
    'cluster {',
    '  name: testkit',
    `  listen: 127.0.0.1:${node.clusterPort}`,
    `  routes: [${routes.join(', ')}]`,
    '}',
    '',
  ].join('\n');
}

/**
 * Three (or `size`) nats-server processes with JetStream on loopback, routed into one cluster,
 * each with its own store directory under a temporary directory (removed on stop). For tests
 * of R3 streams under node failures.
 */
export async function startNatsCluster(opts: NatsClusterOptions = {}): Promise<NatsCluster> {
  const bin = ensureNatsServer();
  const base = mkdtempSync(path.join(os.tmpdir(), 'nats-cluster-'));
  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= (opts.size ?? 3); i++) {
    const storeDir = path.join(base, `n${i}`);
    mkdirSync(storeDir);
    const port = await freePort();
    nodes.push({ name: `n${i}`, port, clusterPort: await freePort(), url: `nats://127.0.0.1:${port}`, storeDir });
  }
  const url = nodes.map((n) => n.url).join(',');
  const node = (name: string) => {
    const found = nodes.find((n) => n.name === name);
    if (!found) throw new Error(`no node ${name}`);
    return found;
  };
  const launch = async (n: ClusterNode) => {
    const conf = path.join(base, `${n.name}.conf`);
    writeFileSync(conf, configOf(n, nodes));
    n.process = spawn(bin, ['-c', conf], { stdio: opts.quiet === false ? 'inherit' : 'ignore' });
    await waitForPort(n.port, 15000);
  };
  const kill = async (name: string, signal: NodeJS.Signals = 'SIGKILL') => {
    const child = node(name).process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  };

  let admin: NatsConnection | undefined;
  const adminConnection = async () =>
    (admin ??= await connect({ servers: nodes.map((n) => n.url), maxReconnectAttempts: -1, reconnectTimeWait: 250 }));
  const streamInfo = async (stream: string) =>
    (await jetstreamManager(await adminConnection(), { timeout: 5000 })).streams.info(stream);

  const cluster: NatsCluster = {
    nodes,
    url,
    node,
    kill,
    restart: (name) => launch(node(name)),
    async streamLeader(stream) {
      const leader = (await streamInfo(stream)).cluster?.leader;
      if (!leader) throw new Error(`stream ${stream} has no leader`);
      return leader;
    },
    async currentReplicas(stream) {
      const c = (await streamInfo(stream)).cluster;
      return [
        ...(c?.leader ? [c.leader] : []),
        ...(c?.replicas ?? []).filter((r) => r.current && !r.offline).map((r) => r.name),
      ];
    },
    async consumerState(stream, durable) {
      const info = await (
        await jetstreamManager(await adminConnection(), { timeout: 5000 })
      ).consumers.info(stream, durable);
      return {
        delivered: info.delivered,
        ack_floor: info.ack_floor,
        num_pending: info.num_pending,
        num_ack_pending: info.num_ack_pending,
        num_waiting: info.num_waiting,
        cluster: info.cluster,
      };
    },
    async waitForJetStream(timeoutMs = 30000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          // a meta leader answers account info before every peer has joined it: placing (then
          // dropping) a stream on every node is what says a replicated stream can be created now
          const jsm = await jetstreamManager(await adminConnection(), { timeout: 2000 });
          const probe = `READY_PROBE_${process.pid}`;
          await jsm.streams.add({
            name: probe,
            subjects: [`${probe.toLowerCase()}.>`],
            num_replicas: nodes.length,
            storage: StorageType.Memory,
          });
          await jsm.streams.delete(probe);
          return;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`JetStream not available after ${timeoutMs} ms: ${String(err)}`);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    async stop() {
      await admin?.close().catch(() => undefined);
      await Promise.all(nodes.map((n) => kill(n.name, 'SIGTERM')));
      rmSync(base, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map(launch));
    if (opts.waitForJetStream ?? true) await cluster.waitForJetStream();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
