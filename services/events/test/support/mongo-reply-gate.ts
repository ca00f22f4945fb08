import net from 'node:net';

/**
 * A TCP proxy between a service and MongoDB that can hold back the database's reply to chosen
 * commands (by the wire request id the driver's command monitoring reports) until released: a
 * test decides when a query "ends" instead of hoping it is slow enough. Every other reply passes
 * at once. The Node driver sends one command at a time per connection, so holding one reply
 * never reorders another on the same connection.
 */
export class MongoReplyGate {
  private readonly held = new Set<number>();
  private readonly waiting: Array<{ client: net.Socket; message: Buffer }> = [];
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<MongoReplyGate> {
    let gate: MongoReplyGate | undefined;
    const server = net.createServer((client) => gate!.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    gate = new MongoReplyGate(server, (server.address() as net.AddressInfo).port);
    return gate;
  }

  /** `url` with its host replaced by this proxy, connected directly (no discovery past the proxy). */
  urlFor(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    u.searchParams.set('directConnection', 'true');
    return u.toString();
  }

  /** The reply to this request is kept back until `releaseAll()`. */
  hold(requestId: number): void {
    this.held.add(requestId);
  }

  releaseAll(): void {
    this.held.clear();
    for (const { client, message } of this.waiting.splice(0)) if (!client.destroyed) client.write(message);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    this.sockets.add(client).add(upstream);
    // the bytes of the reply being received: joined once it is complete, not chunk by chunk (a
    // batch of many MB arrives in thousands of chunks)
    let chunks: Buffer[] = [];
    let buffered = 0;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      if (chunks[0]!.length < 16 && buffered >= 16) chunks = [Buffer.concat(chunks)];
      // a wire message starts with its total length (int32 LE); responseTo sits at byte 8
      if (buffered < 16 || buffered < chunks[0]!.readInt32LE(0)) return;
      let pending = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (this.held.has(message.readInt32LE(8))) this.waiting.push({ client, message });
        else client.write(message);
      }
      chunks = pending.length ? [pending] : [];
      buffered = pending.length;
    });
    const close = () => {
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
