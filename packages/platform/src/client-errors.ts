import http from 'node:http';
import type { Duplex } from 'node:stream';
import { NO_SNIFF, NO_SNIFF_HEADER } from './no-sniff';

export interface ClientErrorAnswer {
  status: number;
  code: string;
  message: string;
}

/** How a request line can be told from headers in the bytes Node could not parse. */
function requestLineLength(raw: Buffer | undefined): number {
  if (!raw) return 0;
  const end = raw.indexOf('\r\n');
  // no line end yet: the parser overflowed while still reading the request line (a huge URL)
  return end === -1 ? raw.length : end;
}

/**
 * The answer to a request Node's HTTP parser refused before any handler saw it (Node's own
 * answer has an empty body). Over-long request line: 414; over-long headers: 431; a request that
 * took too long to arrive: 408; anything else malformed: 400. Pure, for table tests.
 */
export function clientErrorAnswer(
  err: NodeJS.ErrnoException & { rawPacket?: Buffer },
  maxHeaderSize = http.maxHeaderSize,
): ClientErrorAnswer {
  const kb = Math.round(maxHeaderSize / 1024);
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestLineLength(err.rawPacket) > maxHeaderSize / 2
        ? {
            status: 414,
            code: 'uri_too_long',
            message: `the URL is too long: request line and headers may hold at most ${kb} KB`,
          }
        : {
            status: 431,
            code: 'request_header_fields_too_large',
            message: `the request headers are too large: request line and headers may hold at most ${kb} KB`,
          };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
    default:
      return { status: 400, code: 'validation_error', message: 'malformed HTTP request' };
  }
}

/**
 * Answers requests the HTTP parser refuses in the services' one JSON error shape
 * instead of Node's empty-bodied 400/408/431, then closes the connection.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(err);
    const body = JSON.stringify({ error: { code: answer.code, message: answer.message } });
    socket.end(
      `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `${NO_SNIFF_HEADER}: ${NO_SNIFF}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
