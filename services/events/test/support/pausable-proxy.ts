import net from 'node:net';

/**
 * A TCP proxy between a service and its NATS server, for faults a real network has: replies held
 * back (the server got and stored a publish, its ack is late) and connections cut (the broker is
 * gone for the client). Bytes are never dropped or reordered, so the protocol stays intact.
 */
export class PausableProxy {
  private readonly links = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private held = false;
  private listening = true;
  private readonly heldChunks = new Map<net.Socket, Buffer[]>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<PausableProxy> {
    let proxy: PausableProxy | undefined;
    const server = net.createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new PausableProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** From now on, what the server sends is kept back (acks, deliveries, pongs) until release. */
  holdReplies(): void {
    this.held = true;
  }

  releaseReplies(): void {
    this.held = false;
    for (const [client, chunks] of this.heldChunks)
      for (const chunk of chunks) if (!client.destroyed) client.write(chunk);
    this.heldChunks.clear();
  }

  /** Every connection is cut and new ones are refused (nothing listens: connection refused, as with a dead broker), until restore(). */
  async cut(): Promise<void> {
    this.held = false;
    this.heldChunks.clear();
    for (const { client, upstream } of this.links) {
      client.destroy();
      upstream.destroy();
    }
    this.links.clear();
    if (!this.listening) return;
    this.listening = false;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (this.listening) return;
    this.listening = true;
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await this.cut();
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    const link = { client, upstream };
    this.links.add(link);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (!this.held) {
        client.write(chunk);
        return;
      }
      const chunks = this.heldChunks.get(client) ?? [];
      chunks.push(chunk);
      this.heldChunks.set(client, chunks);
    });
    const close = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
