import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. `destroy` drops the connection after reading the request. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  destroy?: boolean;
}

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:0 that answers with `replies` in order, repeating the last. */
export async function startScriptedServer(replies: ScriptedReply[]): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer(async (req, res) => {
    // recorded on arrival, so a request the client abandons mid-way is still counted
    const entry: SeenRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: '',
      at: Date.now(),
    };
    seen.push(entry);
    try {
      for await (const chunk of req) entry.body += chunk;
    } catch {
      return; // the client went away mid-request
    }
    const reply = replies[Math.min(seen.indexOf(entry) + 1, replies.length) - 1] ?? { status: 200 };
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const text =
      reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, {
      ...(text && typeof reply.body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...reply.headers,
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const errorBody = (code: string, message: string) => ({ error: { code, message } });
